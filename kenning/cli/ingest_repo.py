"""``kenning ingest-repo PATH``: ask a running server to ingest a git repository's code
(``ingestRepository``), follow the job to its end under a progress bar of its files
(``IngestionJob.repositoryProgress``: done of planned, refused, time so far; plain lines when
stderr is not a terminal), then print what the run did (files ingested, unchanged, purged,
refused, skipped) and a table naming every refused file and why, read from the branch
node's ``lastRun``.

PATH is a directory on the server's machine (under its KENNING_REPOSITORY_ROOTS) or a git
URL (http, https, ssh or file). Exit codes as `kenning.cli.exit_codes` says: 1 when the job
fails, 2 for a path or branch the server refuses, 3 and 4 for a server down or a key refused;
a run that refused some files ends 0, its table naming them.
The functions take kenning-client's ``AsyncKenningClient`` so that tests drive them against a
real app.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kenning.cli import progress_bar
from kenning.cli.exit_codes import ExitCode
from kenning.cli.group import report
from kenning.cli.options import SERVER, ApiKey, ServerUrl, api_key_of
from kenning.cli.progress_bar import ProgressBar
from kenning.cli.server_calls import FINISHED, server_client
from kenning.cli.server_errors import calling, refused
from kenning.cli.tables import table

if TYPE_CHECKING:
    from kenning_client import AsyncKenningClient

COUNTS = ("ingested", "unchanged", "purged", "refused", "skipped", "aliases")


def repository_input(
    target: str, branch: str | None, project: str | None, name: str | None
) -> dict[str, Any]:
    """The mutation's input: a URL as ``gitUrl``, anything else as an absolute ``path``."""
    where = {"gitUrl": target} if "://" in target else {"path": str(Path(target).absolute())}
    extra = {"branch": branch, "project": project, "name": name}
    return {**where, **{key: value for key, value in extra.items() if value is not None}}


def progress_line(files: dict[str, int], seconds: float) -> str:
    """One line of a run's progress. Example: ``files 120/850 · refused 3 · 0:42``."""
    done, planned, refusals = files["done"], files["planned"], files["refused"]
    return progress_bar.progress_line("files", done, planned, refusals, seconds)


async def ingest_repository(
    client: AsyncKenningClient,
    input: dict[str, Any],
    on_progress: Callable[[dict[str, int]], None] = lambda _: None,
    *,
    every: float = 0.5,
    within: float = 3600,
) -> tuple[str, dict[str, Any]]:
    """Request the ingest and follow its job, calling ``on_progress`` with each new file
    count: the final status and the last run's counts (empty when the job did not finish
    INDEXED). ``typer.BadParameter`` naming the field on a refusal of a bad argument, an
    ``UpstreamError`` on one of the key."""
    from kenning_client import IngestRepositoryIngestRepositoryIngestionHandle as Handle
    from kenning_client import IngestRepositoryInput

    request = IngestRepositoryInput.model_validate(input)
    handle = await client.ingest_repository(request)
    if not isinstance(handle, Handle):
        raise refused(handle)
    if handle.status == "SKIPPED":
        return "SKIPPED_DUPLICATE", {}
    deadline = time.monotonic() + within
    shown: dict[str, int] = {}
    while True:
        job = await client.ingestion_status(handle.job_id)
        files = job.repository_progress.model_dump() if job and job.repository_progress else {}
        if files and files != shown:
            shown = files
            on_progress(files)
        if job is None or job.status in FINISHED:
            break
        if time.monotonic() > deadline:
            return "RUNNING", {}
        await asyncio.sleep(every)
    if job is None:
        return "MISSING", {"error": None}
    if job.status != "INDEXED":
        return job.status.value, {"error": job.last_error}
    return "INDEXED", await last_run(client, job.source_urn or "")


async def last_run(client: AsyncKenningClient, state_urn: str) -> dict[str, Any]:
    """The counts the branch node of ``code:<repo>@<branch>`` keeps of its last run."""
    repository, _, branch = state_urn.removeprefix("code:").partition("@")
    node = await client.node(f"branch:{repository}/{branch}")
    properties = (node.properties if node else None) or {}
    run: dict[str, Any] = properties.get("lastRun") or {}
    return {"commit": properties.get("lastCommit"), **run}


def ingest_repo_command(
    path: Annotated[
        str, typer.Argument(metavar="PATH|URL", help="A directory on the server, or a git URL.")
    ],
    branch: Annotated[
        str | None, typer.Option(metavar="NAME", help="The branch [default: the current branch].")
    ] = None,
    project: Annotated[
        str | None, typer.Option(metavar="ID", help="The project to store under [default: none].")
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(
            metavar="NAME", help="The repository's name in keys [default: from the path]."
        ),
    ] = None,
    url: ServerUrl = SERVER,
    api_key: ApiKey = None,
) -> None:
    """Ingest a git repository's code structure and follow the job to its end."""
    key = api_key_of(api_key)

    async def run(bar: ProgressBar) -> tuple[str, dict[str, Any]]:
        def show(files: dict[str, int]) -> None:
            bar.update(files["done"], files["planned"], files["refused"])

        async with server_client(url, key) as client:
            asked = repository_input(path, branch, project, name)
            return await ingest_repository(client, asked, show)

    with calling(url), ProgressBar("files") as bar:
        status, counts = asyncio.run(run(bar))
    typer.echo(f"{status}" + (f" at {counts['commit']}" if counts.get("commit") else ""))
    for count in COUNTS:
        if count in counts:
            typer.echo(
                f"  files {count}: {counts[count]}"
                if count != "aliases"
                else f"  aliases registered: {counts[count]}"
            )
    refused_files = counts.get("refusedFiles") or []
    if refused_files:
        rows = [(f["path"], f["code"], f["reason"]) for f in refused_files]
        typer.echo(table(("REFUSED FILE", "CODE", "WHY"), rows))
        if counts.get("refused", 0) > len(rows):
            typer.echo(f"  and {counts['refused'] - len(rows)} more (the server log names them)")
        many = counts.get("refused", len(rows))
        typer.echo(
            f"{many} file{'s' if many != 1 else ''} refused (the table says why): the rest "
            "of the run is stored; fix them and run again to add them",
            err=True,
        )
    if status not in ("INDEXED", "SKIPPED_DUPLICATE"):
        why = f": {counts['error']}" if counts.get("error") else ""
        raise report(f"the job ended {status}{why}", ExitCode.FAILED)

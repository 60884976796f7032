"""``kenning ingest PATH…``: upload files (folders recursively) to a running server with
the GraphQL multipart request, follow each job to its end under a progress bar on stderr
(files done of all, failed, time so far: ``progress_bar.ProgressBar``), then print a summary
table (file, type, chunks, status, error). Exit code 1 when any file failed (one
``error:`` line counts them), 3 or 4 for a server down or a key refused.

The functions take kenning-client's ``AsyncKenningClient`` so that tests drive them against a
real app.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Column, Table

from kenning.cli.exit_codes import ExitCode
from kenning.cli.group import report
from kenning.cli.options import SERVER, ApiKey, ServerUrl, api_key_of
from kenning.cli.progress_bar import ProgressBar
from kenning.cli.server_calls import FINISHED, server_client
from kenning.cli.server_errors import calling, key_refusal

if TYPE_CHECKING:
    from kenning_client import AsyncKenningClient

DONE = {"INDEXED", "SKIPPED_DUPLICATE"}


@dataclass(slots=True)
class FileRun:
    """One file's way through: its upload, its job, and how it ended."""

    path: Path
    media_type: str = ""
    source_urn: str = ""
    job_id: str | None = None
    status: str = "QUEUED"
    chunks: int | None = None
    error: str = ""

    @property
    def failed(self) -> bool:
        return self.status not in DONE


def collect(paths: Iterable[Path]) -> list[Path]:
    """The regular files under ``paths`` (folders recursively, hidden entries skipped),
    sorted; a missing path is an error naming it."""
    found: list[Path] = []
    for path in paths:
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file() and not _hidden(p, path))
        else:
            raise typer.BadParameter(f"{path} is neither a file nor a folder")
    return found


def _hidden(path: Path, root: Path) -> bool:
    return any(part.startswith(".") for part in path.relative_to(root).parts)


async def upload(client: AsyncKenningClient, run: FileRun, options: dict[str, Any]) -> None:
    """Send ``run.path`` as ``ingestFile``; a refusal of the file ends the run as FAILED, one
    of the key raises (every other file would be refused alike)."""
    # Here, not at the top: every other command (``serve`` on a port in use) would pay for it.
    from kenning_client import (
        PREFLIGHT,
        GraphQLClientError,
        GraphQLClientHttpError,
        IngestFileIngestFileFileRejected,
        IngestFileIngestFileIngestFileSuccess,
        IngestFileInput,
        Upload,
    )

    file = Upload(run.path.name, io.BytesIO(run.path.read_bytes()), "application/octet-stream")
    input = IngestFileInput.model_validate(options) if options else None
    try:
        result = await client.ingest_file(file, input, headers=PREFLIGHT)
    except GraphQLClientHttpError as answer:
        if answer.status_code in (401, 403):
            raise  # `calling` turns it into the command's one line
        run.status, run.error = "FAILED", str(answer)[:200]
        return
    except GraphQLClientError as refused:
        run.status, run.error = "FAILED", str(refused)[:200]
        return
    if not isinstance(result, IngestFileIngestFileIngestFileSuccess):
        problem_of_key = key_refusal(result)
        if problem_of_key is not None:
            raise problem_of_key
        problem = result.problem if isinstance(result, IngestFileIngestFileFileRejected) else None
        run.status, run.error = "FAILED", f"{problem or result.code}: {result.message}"
        return
    run.job_id = result.job.job_id
    run.media_type = result.file.media_type
    run.source_urn = result.file.source_urn


async def follow(client: AsyncKenningClient, run: FileRun, every: float = 0.25) -> None:
    """Poll the run's job until it ends; then read the chunk count from its document node."""
    while run.job_id is not None:
        job = await client.ingestion_status(run.job_id)
        if job is None:
            run.status, run.error = "FAILED", "the job is not visible to this key"
            return
        run.status = job.status.value
        if run.status in FINISHED:
            run.error = job.last_error or ""
            break
        await asyncio.sleep(every)
    if run.status in DONE:
        from kenning.domain.sources.files.file_graph import document_key

        node = await client.node(document_key(run.source_urn))
        run.chunks = node.properties.get("chunks") if node else None


async def ingest_all(
    client: AsyncKenningClient, paths: list[Path], options: dict[str, Any], console: Console
) -> list[FileRun]:
    """Upload every file, then follow every job, under one progress bar on ``console``: files
    done of all, and how many of them failed."""
    runs = [FileRun(path) for path in paths]
    with ProgressBar("files", console) as bar:
        for run in runs:
            await upload(client, run, options)
        bar.update(0, len(runs), 0)
        for done, run in enumerate(runs, 1):
            await follow(client, run)
            bar.update(done, len(runs), sum(r.failed for r in runs[:done]))
    return runs


def summary(runs: list[FileRun]) -> Table:
    """The table printed at the end."""
    table = Table(Column("file", overflow="fold"), "type", "chunks", "status", "error")
    for run in runs:
        chunks = "" if run.chunks is None else str(run.chunks)
        table.add_row(str(run.path), run.media_type, chunks, run.status, run.error)
    return table


def ingest_command(
    paths: Annotated[
        list[Path], typer.Argument(metavar="PATH...", help="Files and folders (recursively).")
    ],
    url: ServerUrl = SERVER,
    api_key: ApiKey = None,
    kind: Annotated[
        str | None, typer.Option(metavar="KIND", help='The chunks\' kind [default: "file"].')
    ] = None,
    tag: Annotated[
        list[str] | None,
        typer.Option(metavar="TAG", help="A tag of every chunk, repeatable [default: none]."),
    ] = None,
    ocr: Annotated[str, typer.Option(metavar="MODE", help="AUTO, ALWAYS or NEVER.")] = "AUTO",
) -> None:
    """Ingest files and folders into a running server, with a summary at the end."""
    key = api_key_of(api_key)
    files = collect(paths)
    options: dict[str, Any] = {"ocr": ocr.upper(), "tags": list(tag or ())}
    if kind:
        options["kind"] = kind
    console = Console()

    async def main() -> list[FileRun]:
        async with server_client(url, key) as client:
            return await ingest_all(client, files, options, Console(stderr=True))

    with calling(url):
        runs = asyncio.run(main())
    console.print(summary(runs))
    failed = sum(run.failed for run in runs)
    if failed:
        raise report(f"{failed} of {len(runs)} files failed (the table says why)", ExitCode.FAILED)

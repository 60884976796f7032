"""``kenning crawl URL``: ask a running server to crawl a site (the ``crawl`` mutation),
follow the job to its end under a progress bar of its pages (visited of planned, refused,
time so far; plain lines when stderr is not a terminal), then print its final counts.

Exit codes as `kenning.cli.exit_codes` says: 1 when the job fails (its last error printed,
e.g. the SSRF refusal of a private address), 2 for an option the server refuses, 3 and 4 for
a server down or a key refused. The functions take kenning-client's
``AsyncKenningClient`` so that tests drive them against a real app.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

import typer

from kenning.cli.exit_codes import ExitCode
from kenning.cli.group import report
from kenning.cli.options import SERVER, ApiKey, api_key_of
from kenning.cli.progress_bar import ProgressBar
from kenning.cli.server_calls import FINISHED, server_client
from kenning.cli.server_errors import calling, refused

if TYPE_CHECKING:
    from kenning_client import AsyncKenningClient

COUNTS = ("fetched", "unchanged", "skipped", "failed", "queued", "stored")


@dataclass(slots=True)
class CrawlRun:
    """How a followed crawl ended: its job, final status, last counts and error."""

    job_id: str
    status: str
    progress: dict[str, int] = field(default_factory=dict)
    error: str | None = None

    @property
    def failed(self) -> bool:
        return self.status != "INDEXED"


def describe(progress: dict[str, int]) -> str:
    """One line of counts. Example: ``fetched 3 · unchanged 0 · … · stored 3``."""
    return " · ".join(f"{name} {progress.get(name, 0)}" for name in COUNTS)


def pages(progress: dict[str, int], max_pages: int) -> tuple[int, int, int]:
    """Pages visited, visited or waiting (at most ``max_pages``), and refused (failed):
    what the progress bar shows of a crawl's counts."""
    visited = sum(progress.get(name, 0) for name in ("fetched", "unchanged", "skipped", "failed"))
    planned = min(visited + progress.get("queued", 0), max_pages)
    return visited, max(planned, visited), progress.get("failed", 0)


async def with_client(client: AsyncKenningClient, input: dict[str, Any]) -> dict[str, Any]:
    """``input`` with a project scope given alone (``--project``) put under the key's own
    client, which a project scope needs."""
    scope = input.get("scope")
    if not scope or scope.get("clientId"):
        return input
    viewer = await client.viewer()
    return {**input, "scope": {**scope, "clientId": viewer.scope.client_id}}


async def crawl_site(
    client: AsyncKenningClient,
    input: dict[str, Any],
    on_progress: Callable[[dict[str, int]], None] = lambda _: None,
    *,
    every: float = 0.5,
    within: float = 24 * 3600,
) -> CrawlRun:
    """Request the crawl and follow its job, calling ``on_progress`` with each new count;
    ``typer.BadParameter`` naming the field on a refusal of an option, an ``UpstreamError``
    on one of the key."""
    from kenning_client import CrawlCrawlIngestionHandle, CrawlInput

    request = CrawlInput.model_validate(await with_client(client, input))
    handle = await client.crawl(request)
    if not isinstance(handle, CrawlCrawlIngestionHandle):
        raise refused(handle)
    run = CrawlRun(handle.job_id, handle.status.value)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        job = await client.ingestion_status(run.job_id)
        if job is None:
            return CrawlRun(run.job_id, "MISSING", run.progress)
        run.status, run.error = job.status.value, job.last_error
        counts = job.progress.model_dump() if job.progress else None
        if counts and counts != run.progress:
            run.progress = counts
            on_progress(run.progress)
        if run.status in FINISHED:
            return run
        await asyncio.sleep(every)
    return run


def crawl_input(
    url: str,
    max_depth: int,
    max_pages: int,
    same_site: bool,
    include: list[str],
    exclude: list[str],
    recrawl_after: int | None,
    project: str | None,
) -> dict[str, Any]:
    """The mutation's input from the command's options."""
    input: dict[str, Any] = {
        "url": url,
        "maxDepth": max_depth,
        "maxPages": max_pages,
        "sameSite": same_site,
        "include": include,
        "exclude": exclude,
        "recrawlAfter": recrawl_after,
    }
    if project is not None:
        input["scope"] = {"projectId": project}
    return input


def crawl_command(
    url: Annotated[str, typer.Argument(metavar="URL", help="The start URL (http or https).")],
    max_depth: Annotated[
        int, typer.Option(metavar="N", help="Links away from the start, 0..20.")
    ] = 2,
    max_pages: Annotated[
        int, typer.Option(metavar="N", help="URLs visited at most, 1..5000.")
    ] = 100,
    same_site: Annotated[bool, typer.Option(help="Stay on the start host.")] = True,
    include: Annotated[
        list[str] | None,
        typer.Option(metavar="GLOB", help="Glob to keep, repeatable [default: everything]."),
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(metavar="GLOB", help="Glob to skip, repeatable [default: none]."),
    ] = None,
    recrawl_after: Annotated[
        int | None,
        typer.Option(
            metavar="SECONDS",
            help="Pages fetched more recently are not fetched [default: always fetch].",
        ),
    ] = None,
    project: Annotated[
        str | None, typer.Option(metavar="ID", help="The project to store under [default: none].")
    ] = None,
    url_of_server: Annotated[
        str, typer.Option("--server", metavar="URL", help="The running server.")
    ] = SERVER,
    api_key: ApiKey = None,
) -> None:
    """Crawl a site into the knowledge base and follow the job to its end."""
    key = api_key_of(api_key)
    input = crawl_input(
        url, max_depth, max_pages, same_site, include or [], exclude or [], recrawl_after, project
    )

    async def run(bar: ProgressBar) -> CrawlRun:
        async with server_client(url_of_server, key) as client:
            return await crawl_site(client, input, lambda p: bar.update(*pages(p, max_pages)))

    with calling(url_of_server, "--server"), ProgressBar("pages") as bar:
        done = asyncio.run(run(bar))
    typer.echo(f"{done.status} (job {done.job_id})")
    if done.progress:
        typer.echo(f"  {describe(done.progress)}")
    if done.failed:
        why = f": {done.error}" if done.error else ""
        raise report(f"the crawl ended {done.status}{why}", ExitCode.FAILED)

"""``kenning ingest-repo``'s client against the real schema and stack: the request, the job
followed to INDEXED while a worker runs it, the last run's counts read back, a second commit
reported as ingested and purged files, and a refusal raised with its field."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import httpx
import pytest
import redis.asyncio as aioredis
import typer
from kenning_client import AsyncKenningClient, async_client_over

from kenning.cli.ingest_repo import ingest_repository, progress_line, repository_input
from kenning.domain.queue.jobs import Lane
from kenning.domain.queue.runner import run_job
from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.support.code_repo import git, make_code_repo
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api
from tests.support.queue_api import agent

pytestmark = pytest.mark.integration


@pytest.fixture
async def cli_runtime(
    pool: asyncpg.Pool, migrated_settings: Settings, embedder: CountingEmbedder, clean: None,
    tmp_path: Path,
) -> AsyncIterator[Runtime]:  # fmt: skip
    settings = migrated_settings.model_copy(update={"repository_roots": [str(tmp_path)]})
    redis = aioredis.from_url(settings.redis_url)
    yield Runtime(settings=settings, pool=pool, redis=redis, embedder=embedder)
    await redis.aclose()


def client_for(api: Api) -> AsyncKenningClient:
    """A client whose POST /graphql runs on ``api`` (the real schema, in process)."""

    async def handle(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        result = await api.execute(body["query"], **body.get("variables", {}))
        errors = [str(e) for e in result.errors or ()]
        return httpx.Response(
            200, json={"data": result.data, **({"errors": errors} if errors else {})}
        )

    http = httpx.AsyncClient(transport=httpx.MockTransport(handle), base_url="http://kenning")
    return async_client_over(http)


async def worker(runtime: Runtime) -> None:
    while True:
        while (claimed := await runtime.queue.work.claim(Lane.BULK, "test/cli", 60)) is not None:
            await run_job(claimed, runtime.queue.work, runtime.job_deps())
        await asyncio.sleep(0.05)


async def test_the_cli_follows_the_job_and_reports_the_run(
    cli_runtime: Runtime, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path / "shop")
    git(repo.root, "reset", "-q", "--hard", repo.first)
    running = asyncio.create_task(worker(cli_runtime))
    try:
        async with client_for(Api(cli_runtime, agent("acme"))) as client:
            status, counts = await ingest_repository(
                client, repository_input(str(repo.root), None, None, None), every=0.05
            )
            assert (status, counts["commit"]) == ("INDEXED", repo.first)
            assert (counts["ingested"], counts["purged"], counts["refused"]) == (10, 0, 0)
            assert counts["skipped"] == 0 and counts["aliases"] > 0
            git(repo.root, "reset", "-q", "--hard", repo.second)
            status, counts = await ingest_repository(
                client, repository_input(str(repo.root), "main", None, None), every=0.05
            )
            assert (status, counts["commit"]) == ("INDEXED", repo.second)
            assert (counts["ingested"], counts["purged"]) == (3, 2)
            with pytest.raises(typer.BadParameter, match="branch"):
                await ingest_repository(
                    client, repository_input(str(repo.root), "nope", None, None)
                )
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running


async def test_the_cli_sees_the_files_done_and_every_refused_file_and_why(
    cli_runtime: Runtime, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path / "keys")
    (repo.root / "app" / "settings.py").write_text(
        'AWS_ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLF"\n\ndef region():\n    return "eu"\n'
    )
    git(repo.root, "add", "-A")
    git(repo.root, "commit", "-q", "-m", "settings")
    seen: list[dict[str, int]] = []
    running = asyncio.create_task(worker(cli_runtime))
    try:
        async with client_for(Api(cli_runtime, agent("acme"))) as client:
            asked = repository_input(str(repo.root), None, None, None)
            status, counts = await ingest_repository(client, asked, seen.append, every=0.01)
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
    assert status == "INDEXED" and counts["refused"] == 1
    [refused] = counts["refusedFiles"]
    assert (refused["path"], refused["code"]) == ("app/settings.py", "SENSITIVE_CONTENT")
    assert "AKIA" not in refused["reason"]  # why, never the credential itself
    # The live counts end where the run ended: every planned file done, the refusal in it.
    assert seen and seen[-1]["done"] == seen[-1]["planned"] >= 10
    assert seen[-1]["refused"] == 1
    assert [s["done"] for s in seen] == sorted(s["done"] for s in seen)


def test_a_progress_line_says_done_of_planned_refused_and_the_time() -> None:
    line = progress_line({"planned": 850, "done": 120, "refused": 3}, 62.4)
    assert line == "files 120/850 · refused 3 · 1:02"


def test_a_url_is_sent_as_git_url_and_a_path_made_absolute() -> None:
    assert repository_input("file:///srv/shop", "dev", "web", None) == {
        "gitUrl": "file:///srv/shop", "branch": "dev", "project": "web",
    }  # fmt: skip
    assert repository_input("shop", None, None, "s")["path"] == str(Path("shop").absolute())

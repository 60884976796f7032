"""What ``kenning ingest-repo`` and ``kenning crawl`` print, against a scripted server: the
progress on stderr as plain lines off a terminal, the refused files' table and one line
saying they were refused, a failed job as one ``error:`` line and exit 1, and a server that
is not Kenning's named as such."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from kenning_client import AsyncKenningClient, async_client_over

from kenning.cli.exit_codes import ExitCode
from tests.support.cli_runner import run

Answer = Callable[[dict[str, Any]], dict[str, Any]]
URL = "http://kenning.test"
KEY = ("--api-key", "kn_test")


def job(status: str, **fields: Any) -> dict[str, Any]:
    base = {
        "id": "j1",
        "status": status,
        "stage": None,
        "position": None,
        "lastError": None,
        "sourceUrn": "code:shop@main",
        "progress": None,
        "repositoryProgress": None,
        "nextAttemptAt": None,
        "waitingForModelSince": None,
    }
    return {"ingestionStatus": {**base, **fields}}


class ScriptedServer:
    """Answers each GraphQL operation by name; ``ingestionStatus`` from a list, in turn."""

    def __init__(self, statuses: list[dict[str, Any]], **answers: Answer) -> None:
        self.statuses = iter(statuses)
        self.answers = answers

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(_operations(request))
        name = body["operationName"]
        if name == "IngestionStatus":
            return httpx.Response(200, json={"data": next(self.statuses)})
        return httpx.Response(200, json={"data": self.answers[name](body["variables"])})


def _operations(request: httpx.Request) -> bytes:
    """The GraphQL request: the body, or a multipart upload's ``operations`` part."""
    if not request.headers["content-type"].startswith("multipart/"):
        return request.content
    part = request.content.split(b'name="operations"', 1)[1]
    return part.split(b"\r\n\r\n", 1)[1].split(b"\r\n--", 1)[0]


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[Any], None]]:
    def install(handler: Any) -> None:
        def client(url: str, api_key: str) -> AsyncKenningClient:
            http = httpx.AsyncClient(transport=httpx.MockTransport(handler), base_url=url)
            return async_client_over(http, api_key)

        for module in ("kenning.cli.ingest_repo", "kenning.cli.crawl", "kenning.cli.ingest_files"):
            monkeypatch.setattr(f"{module}.server_client", client)
        monkeypatch.setattr("kenning.cli.ingest_repo.asyncio.sleep", _no_wait)

    yield install


async def _no_wait(_: float) -> None:
    return None


def handle(status: str) -> Answer:
    return lambda _: {
        "ingestRepository": {"__typename": "IngestionHandle", "jobId": "j1", "status": status}
    }


def test_a_run_with_a_refused_file_shows_progress_the_table_and_one_line(
    serve: Callable[[Any], None],
) -> None:
    last_run = {
        "ingested": 2,
        "unchanged": 0,
        "purged": 0,
        "refused": 1,
        "skipped": 0,
        "aliases": 4,
        "refusedFiles": [
            {
                "path": "app/settings.py",
                "code": "SENSITIVE_CONTENT",
                "reason": "holds credentials: aws key on line 1",
            }
        ],
    }
    node = {
        "key": "branch:shop/main",
        "type": "branch",
        "degree": 1,
        "properties": {"lastCommit": "abc123", "lastRun": last_run},
    }
    serve(
        ScriptedServer(
            [
                job("RUNNING", repositoryProgress={"planned": 3, "done": 1, "refused": 0}),
                job("INDEXED", repositoryProgress={"planned": 3, "done": 3, "refused": 1}),
            ],
            IngestRepository=handle("QUEUED"),
            Node=lambda _: {"node": node},
        )
    )
    done = run("ingest-repo", "https://git.example.com/shop.git", "--url", URL, *KEY)
    assert done.exit_code == ExitCode.OK, done.output
    assert done.stderr.splitlines() == [
        "files 1/3 · refused 0 · 0:00",
        "files 3/3 · refused 1 · 0:00",
        "1 file refused (the table says why): the rest of the run is stored; fix them and run "
        "again to add them",
    ]
    assert "REFUSED FILE     CODE               WHY" in done.stdout
    assert "app/settings.py  SENSITIVE_CONTENT  holds credentials: aws key on line 1" in (
        done.stdout
    )


def test_a_failed_job_is_one_error_line_and_exit_1(serve: Callable[[Any], None]) -> None:
    serve(
        ScriptedServer(
            [job("FAILED", lastError="git: repository not found")],
            IngestRepository=handle("QUEUED"),
        )
    )
    done = run("ingest-repo", "https://git.example.com/gone.git", "--url", URL, *KEY)
    assert done.exit_code == ExitCode.FAILED
    assert done.stderr == "error: the job ended FAILED: git: repository not found\n"
    assert "Traceback" not in done.output


def test_a_crawl_shows_its_pages_on_stderr_and_its_counts_at_the_end(
    serve: Callable[[Any], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("kenning.cli.crawl.asyncio.sleep", _no_wait)
    counts = {"fetched": 2, "unchanged": 0, "skipped": 0, "failed": 1, "queued": 4, "stored": 2}
    final = {**counts, "fetched": 5, "queued": 0, "stored": 5}
    crawl = {"__typename": "IngestionHandle", "jobId": "j1", "status": "QUEUED"}
    serve(
        ScriptedServer(
            [job("RUNNING", progress=counts), job("INDEXED", progress=final)],
            Crawl=lambda _: {"crawl": crawl},
        )
    )
    done = run("crawl", "https://docs.example.com/", "--server", URL, *KEY)
    assert done.exit_code == ExitCode.OK, done.output
    assert done.stderr.splitlines() == [
        "pages 3/7 · refused 1 · 0:00",
        "pages 6/6 · refused 1 · 0:00",
    ]
    assert done.stdout.splitlines() == [
        "INDEXED (job j1)",
        "  fetched 5 · unchanged 0 · skipped 0 · failed 1 · queued 0 · stored 5",
    ]


def test_a_server_that_is_not_kennings_is_named_and_exit_1(
    serve: Callable[[Any], None],
) -> None:
    serve(lambda request: httpx.Response(404, text="not here"))
    done = run("ingest-repo", "https://git.example.com/shop.git", "--url", URL, *KEY)
    assert done.exit_code == ExitCode.FAILED
    assert done.stderr == f"error: {URL} answered HTTP 404: is it a Kenning server? give its URL\n"


def test_ingest_counts_files_done_and_failed_on_stderr_then_one_line(
    serve: Callable[[Any], None], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr("kenning.cli.ingest_files.asyncio.sleep", _no_wait)
    (tmp_path / "a.md").write_text("# A\n")
    (tmp_path / "b.bin").write_bytes(b"\x00\xff")
    answers = iter(
        [
            {
                "__typename": "IngestFileSuccess",
                "job": {"jobId": "j1", "status": "QUEUED"},
                "file": {
                    "id": "f1",
                    "mediaType": "text/markdown",
                    "sourceUrn": "file:a",
                    "size": 4,
                },
            },
            {
                "__typename": "FileRejected",
                "code": "INVALID",
                "message": "not a type Kenning reads",
                "field": "file",
                "problem": "UNSUPPORTED_TYPE",
                "detected": None,
            },
        ]
    )
    serve(
        ScriptedServer(
            [job("INDEXED")],
            IngestFile=lambda _: {"ingestFile": next(answers)},
            Node=lambda _: {"node": None},
        )
    )
    done = run("ingest", str(tmp_path), "--url", URL, *KEY)
    assert done.exit_code == ExitCode.FAILED, done.output
    assert done.stderr.splitlines() == [
        "files 0/2 · refused 0 · 0:00",
        "files 1/2 · refused 0 · 0:00",
        "files 2/2 · refused 1 · 0:00",
        "error: 1 of 2 files failed (the table says why)",
    ]
    assert "b.bin" in done.stdout and "UNSUPPORTED_TYPE:" in done.stdout, done.stdout

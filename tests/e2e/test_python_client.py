"""kenning-client against a real server: the sync client ingests and searches with typed
results; a refusal is a typed error member naming its field; a wrong key raises; the async
client uploads a file (ingestFile), follows its job over the ingestionProgress subscription
to INDEXED, and reads the queueStatus subscription's snapshot; ``kenning ingest`` goes
through it with its summary and exit codes; the docs' five-line example runs."""

from __future__ import annotations

import asyncio
import io
import re
import uuid
from collections.abc import AsyncGenerator
from pathlib import Path

import pytest
from kenning_client import (
    ErrorCode,
    FileProblem,
    GraphQLClientHttpError,
    IngestFileIngestFileFileRejected,
    IngestFileIngestFileIngestFileSuccess,
    IngestFileInput,
    IngestIngestIngestSuccess,
    IngestInput,
    JobStatus,
    SearchMode,
    SearchSearchSearchSuccess,
    SearchSearchValidationError,
    Upload,
    connect,
    connect_async,
)

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.cli_runner import run
from tests.support.file_samples import text_pdf
from tests.support.readme import DOCS
from tests.support.server_process import Server, create_key

pytestmark = pytest.mark.e2e


@pytest.fixture
def tenant_key(server: Server, migrated_settings: Settings) -> str:
    """An agent key of a client of its own, so searches see only this test's documents."""
    tenant = f"pyclient-{uuid.uuid4().hex[:8]}"
    return asyncio.run(create_key(migrated_settings, Scope(tenant), Role.AGENT))


def test_the_sync_client_ingests_and_searches(server: Server, tenant_key: str) -> None:
    with connect(server.url, tenant_key) as kenning:
        stored = kenning.ingest(
            IngestInput(
                source_urn="doc:release-train",
                kind="note",
                content="The release train leaves every second Thursday at noon.",
                tags=["ops"],
            )
        )
        assert isinstance(stored, IngestIngestIngestSuccess), stored
        assert stored.chunks and stored.content_hash

        found = kenning.search("release train thursday", mode=SearchMode.KEYWORD, limit=3)
    assert isinstance(found, SearchSearchSearchSuccess), found
    hit = found.hits[0]
    assert hit.source_urn == "doc:release-train"
    assert "second Thursday" in hit.chunk.content
    assert hit.chunk.tags == ["ops"] and 0 < hit.score <= 1


def test_a_refusal_is_a_typed_error_member_naming_its_field(
    server: Server, tenant_key: str
) -> None:
    with connect(server.url, tenant_key) as kenning:
        refused = kenning.search("anything", limit=0)
    assert isinstance(refused, SearchSearchValidationError), refused
    assert refused.code is ErrorCode.INVALID
    assert refused.field == "limit" and "between 1 and" in refused.message


def test_a_wrong_key_raises_with_the_status(server: Server) -> None:
    with connect(server.url, "kn_not-a-key") as kenning, pytest.raises(GraphQLClientHttpError) as e:
        kenning.viewer()
    assert e.value.status_code == 401


@pytest.fixture
async def working_key(working_server: Server, migrated_settings: Settings) -> str:
    return await create_key(migrated_settings, Scope(f"pyfile-{uuid.uuid4().hex[:8]}"), Role.AGENT)


async def test_an_upload_is_followed_to_indexed_over_the_subscription(
    working_server: Server, working_key: str
) -> None:
    pdf = text_pdf(["Backups are restored every Friday as a drill."])
    async with connect_async(working_server.url, working_key) as kenning:
        upload = Upload("drill.pdf", io.BytesIO(pdf), "application/pdf")
        queued = await kenning.ingest_file(upload, IngestFileInput(tags=["ops"]))
        assert isinstance(queued, IngestFileIngestFileIngestFileSuccess), queued
        assert queued.file.media_type == "application/pdf"
        assert queued.file.source_urn == "file:drill.pdf" and queued.file.size == len(pdf)

        seen = [job async for job in kenning.ingestion_progress(queued.job.job_id)]
        assert seen[-1].status is JobStatus.INDEXED, seen
        assert all(job.id == queued.job.job_id for job in seen)

        found = await kenning.search("backups restored friday", mode=SearchMode.KEYWORD)
        assert isinstance(found, SearchSearchSearchSuccess)
        assert [hit.source_urn for hit in found.hits][:1] == ["file:drill.pdf"]


async def test_a_file_of_no_known_type_is_rejected_with_its_problem(
    working_server: Server, working_key: str
) -> None:
    async with connect_async(working_server.url, working_key) as kenning:
        blob = Upload("blob.bin", io.BytesIO(b"\x00\x01\x02\xff" * 64), "application/octet-stream")
        rejected = await kenning.ingest_file(blob)
    assert isinstance(rejected, IngestFileIngestFileFileRejected), rejected
    assert rejected.problem is FileProblem.UNSUPPORTED_TYPE


async def test_the_queue_status_subscription_opens_with_a_snapshot(
    working_server: Server, working_key: str
) -> None:
    async with connect_async(working_server.url, working_key) as kenning:
        stream = kenning.queue_status(first=5)
        assert isinstance(stream, AsyncGenerator)
        try:
            snapshot = await anext(stream)
        finally:
            await stream.aclose()
    assert snapshot.at.tzinfo is not None
    assert snapshot.degraded is False
    assert snapshot.workers_alive is not None and snapshot.workers_alive >= 2
    assert len(snapshot.queued) <= 5


def test_kenning_ingest_goes_through_the_client(
    working_server: Server, migrated_settings: Settings, tmp_path: Path
) -> None:
    key = asyncio.run(
        create_key(migrated_settings, Scope(f"pycli-{uuid.uuid4().hex[:8]}"), Role.AGENT)
    )
    (tmp_path / "notes.md").write_text("# Notes\n\nDeploy on Tuesdays.\n")
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02\xff" * 64)
    server = ("--url", working_server.url, "--api-key", key)
    done = run("ingest", str(tmp_path / "notes.md"), *server)
    assert done.exit_code == 0, done.output
    assert "INDEXED" in done.output and "text/markdown" in done.output, done.output
    failed = run("ingest", str(tmp_path / "blob.bin"), *server)
    assert failed.exit_code == 1, failed.output
    assert "FAILED" in failed.output and "UNSUPPORTED_TYPE" in failed.output, failed.output


def test_the_readme_example_runs_in_five_lines(
    server: Server, tenant_key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    page = DOCS / "guides" / "agents-and-mcp.md"
    section = page.read_text().split("## Python client\n", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None
    example = found.group(1)
    assert len([line for line in example.splitlines() if line.strip()]) == 5, example
    with connect(server.url, tenant_key) as kenning:
        note = IngestInput(source_urn="doc:deploys", kind="note", content="We deploy on Tuesdays.")
        assert isinstance(kenning.ingest(note), IngestIngestIngestSuccess)
    exec(example.replace('"http://127.0.0.1:8000"', repr(server.url)), {"api_key": tenant_key})
    assert "doc:deploys" in capsys.readouterr().out

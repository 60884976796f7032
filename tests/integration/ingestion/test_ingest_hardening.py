"""The write path's smaller guarantees: the bulk lane by default, registered connections
only, a warning when normalization changed a key, and a loop that keeps answering while a
large document is indexed."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import asyncpg
import pytest

from kenning.domain.ingestion import rules as ingest_rules
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

WARNING_FIELDS = "warnings { source line excerpt reason key normalizedKey }"
INGEST = f"""mutation($input: IngestInput!) {{ ingest(input: $input) {{ __typename
  ... on IngestSuccess {{ status nodes {WARNING_FIELDS} }}
  ... on ValidationError {{ code field message }}
  ... on SensitiveContentError {{ code field }} }} }}"""
PLAIN_INGEST = """mutation($input: IngestInput!) { ingest(input: $input) {
  ... on IngestSuccess { status } } }"""
REQUEST = """mutation($input: IngestInput!, $identity: IngestionIdentityInput!) {
  requestIngestion(input: $input, identity: $identity) { __typename
    ... on IngestionHandle { jobId } ... on ValidationError { code field message } } }"""
STATUS = "query($id: ID!) { ingestionStatus(jobId: $id) { lane priority } }"
GRAPH = f"""mutation($input: IngestGraphInput!) {{ ingestGraph(input: $input) {{ __typename
  ... on IngestGraphSuccess {{ status nodes {WARNING_FIELDS} }}
  ... on ValidationError {{ code field message }} }} }}"""
REGISTER = """mutation($input: RegisterConnectionInput!) { registerConnection(input: $input) {
  __typename } }"""


def document(**changes: Any) -> dict[str, Any]:
    return {"sourceUrn": "doc:1", "kind": "note", "content": "Alice owns service:billing.",
            "scope": {"clientId": "acme"}, **changes}  # fmt: skip


def identity(version: str = "v1") -> dict[str, str]:
    return {"sourceKind": "test", "sourceId": "doc:1", "contentVersion": version}


@pytest.fixture
async def no_jobs(clean: None) -> None:
    """An empty knowledge base, queue and connection registry (``clean``)."""


async def test_request_ingestion_defaults_to_the_bulk_lane(api: Api, no_jobs: None) -> None:
    queued = (await api(REQUEST, input=document(), identity=identity()))["requestIngestion"]
    job = (await api(STATUS, id=queued["jobId"]))["ingestionStatus"]
    assert (job["lane"], job["priority"]) == ("BULK", 3)
    urgent = await api(REQUEST, input=document(priority=1), identity=identity("v2"))
    job = (await api(STATUS, id=urgent["requestIngestion"]["jobId"]))["ingestionStatus"]
    assert (job["lane"], job["priority"]) == ("PRIORITY", 1)


@pytest.mark.parametrize("mutation", ["ingest", "requestIngestion", "ingestGraph"])
async def test_an_unregistered_connection_is_refused_naming_connection_id(
    api: Api, pool: asyncpg.Pool, no_jobs: None, mutation: str
) -> None:
    async def write() -> dict[str, Any]:
        if mutation == "ingest":
            data = await api(INGEST, input=document(connectionId="drive-9"))
        elif mutation == "ingestGraph":
            graph = {"sourceUrn": "g:1", "scope": {"clientId": "acme"}, "connectionId": "drive-9",
                     "nodes": [{"key": "user:alice"}]}  # fmt: skip
            data = await api(GRAPH, input=graph)
        else:
            data = await api(REQUEST, input=document(connectionId="drive-9"), identity=identity())
        result: dict[str, Any] = data[mutation]
        return result

    refused = await write()
    assert (refused["__typename"], refused["code"], refused["field"]) == (
        "ValidationError", "INVALID", "connectionId"
    )  # fmt: skip
    assert "registerConnection" in refused["message"]
    assert await pool.fetchval("SELECT count(*) FROM sources") == 0
    registered = {"connectionId": "drive-9", "authority": "google", "label": "Drive",
                  "scope": {"clientId": "acme"}}  # fmt: skip
    assert (await api(REGISTER, input=registered))["registerConnection"]["__typename"] == (
        "RegisterConnectionSuccess"
    )
    assert (await write())["__typename"] in ("IngestSuccess", "IngestionHandle",
                                             "IngestGraphSuccess")  # fmt: skip


async def test_a_key_changed_beyond_case_and_whitespace_is_reported(api: Api) -> None:
    result = (
        await api(
            INGEST,
            input=document(
                mainNodeKey="Note:ONE",
                relationships=["person:o'brien\"$$x|knows|person:alice",
                               "Person: Bob |knows| person:alice"],
            ),
        )
    )["ingest"]  # fmt: skip
    assert result["status"] == "INDEXED"
    assert "person:o_brien___x" in result["nodes"] and "person:bob" in result["nodes"]
    [warning] = result["warnings"]
    assert (warning["key"], warning["normalizedKey"]) == ("person:o'brien\"$$x",
                                                          "person:o_brien___x")  # fmt: skip
    assert (warning["source"], warning["line"]) == ("relationships", 1)
    assert "person:o_brien___x" in warning["reason"]


async def test_ingest_graph_reports_changed_keys_too(api: Api) -> None:
    data = {"sourceUrn": "g:1", "scope": {"clientId": "acme"},
            "nodes": [{"key": "User:Alice"}, {"key": "user:o'brien\"$$x"}]}  # fmt: skip
    result = (await api(GRAPH, input=data))["ingestGraph"]
    assert result["status"] == "INDEXED"
    [warning] = result["warnings"]
    assert (warning["source"], warning["line"]) == ("nodes", 2)
    assert (warning["key"], warning["normalizedKey"]) == ("user:o'brien\"$$x",
                                                          "user:o_brien___x")  # fmt: skip


def _large_content(size: int) -> str:
    paragraph = (
        "The retry loop in service:billing drops pending invoices under load; "
        "user:alice|owns|service:billing and PAY-12 -> affects -> service:ledger.\n\n"
    )
    return (paragraph * (size // len(paragraph) + 1))[:size]


async def test_a_2_mb_ingest_does_not_stall_the_event_loop(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop_thread = threading.get_ident()
    scanned_on: list[tuple[int, int]] = []  # (thread, characters) of each secret scan
    for name in ("scan", "apply_policy"):
        real = getattr(ingest_rules, name)

        def spy(text: str, *args: Any, real: Any = real, **named: Any) -> Any:
            scanned_on.append((threading.get_ident(), len(text)))
            return real(text, *args, **named)

        monkeypatch.setattr(ingest_rules, name, spy)
    lags: list[float] = []
    done = asyncio.Event()

    async def probe() -> None:
        while not done.is_set():
            started = time.perf_counter()
            await asyncio.sleep(0.01)
            lags.append(time.perf_counter() - started - 0.01)

    prober = asyncio.create_task(probe())
    try:
        result = await api(PLAIN_INGEST, input=document(content=_large_content(2_000_000)))
    finally:
        done.set()
        await prober
    assert result["ingest"]["status"] == "INDEXED"
    # The structural reason: the large content was scanned in a worker thread, a segment
    # at a time, so the loop's thread got the GIL back between segments.
    off_loop = [size for thread, size in scanned_on if thread != loop_thread]
    assert sum(off_loop) >= 2_000_000 and max(off_loop) <= 100_000
    # Before, the loop stood still for seconds; now it answers while the work runs.
    assert len(lags) > 20 and max(lags) < 1.0, f"worst loop lag {max(lags):.3f} s"

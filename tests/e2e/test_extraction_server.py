"""Graph extraction in a real `kenning serve` process with in-process queue workers: a
requestIngestion with `extraction: LLM` reaches INDEXED through the server's own workers,
whose model client talks HTTP to a scripted fake Ollama given as KENNING_OLLAMA_URL, and the
extracted edge's evidence is read back over GraphQL. Guards the workers being started with
the extraction deps (Runtime.job_deps())."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.router.demo import FakeOllama
from kenning.settings import Settings
from tests.support.queue_api import JOB_FIELDS
from tests.support.server_process import Server, create_key, start_server, stop_server

pytestmark = pytest.mark.e2e

CONTENT = "The Ledger service stores every invoice in Postgres and reconciles them nightly."
REQUEST = """
mutation Request($input: IngestInput!, $identity: IngestionIdentityInput!) {
  requestIngestion(input: $input, identity: $identity) {
    __typename ... on IngestionHandle { jobId }
  }
}"""
STATUS = f"query Status($id: ID!) {{ ingestionStatus(jobId: $id) {{ {JOB_FIELDS} }} }}"
NEIGHBORS = """
query Neighbors($key: String!) {
  neighbors(key: $key) {
    nodes { key properties }
    edges { fromKey edgeType toKey evidenceCount extractedBy extractionConfidence
            evidence { id sourceUrn content } }
  }
}"""


def answer(body: dict[str, Any]) -> str:
    """The extraction answer: only for the chunk the test ingested."""
    assert "Ledger service" in body["messages"][-1]["content"], body
    return json.dumps({
        "entities": [
            {"type": "service", "name": "Ledger", "description": "Keeps the invoices."},
            {"type": "database", "name": "Postgres", "description": ""},
        ],
        "relations": [
            {"source": "Ledger", "type": "uses", "target": "Postgres", "confidence": 0.9}
        ],
    })  # fmt: skip


@dataclass(frozen=True)
class Stack:
    server: Server
    fake: FakeOllama
    client: str


@pytest.fixture(scope="module")
def stack(migrated_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    fake = FakeOllama("extract-serve")
    fake.start()
    log = tmp_path_factory.mktemp("extraction") / "server.log"
    process, server = start_server(
        migrated_settings, log, KENNING_OLLAMA_URL=fake.url, KENNING_QUEUE_WORKERS="1"
    )
    client = f"xs-{uuid.uuid4().hex[:8]}"
    key = asyncio.run(create_key(migrated_settings, Scope(client), Role.AGENT))
    try:
        yield Stack(server.with_key(key), fake, client)
    finally:
        stop_server(process)
        fake.stop()


def graphql(server: Server, query: str, **variables: Any) -> dict[str, Any]:
    response = httpx.post(
        f"{server.url}/graphql", json={"query": query, "variables": variables},
        headers=server.headers, timeout=30,
    )  # fmt: skip
    body = response.json()
    assert response.status_code == 200 and "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


def wait_for_end(server: Server, job_id: str, within: float = 60.0) -> dict[str, Any]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        job: dict[str, Any] = graphql(server, STATUS, id=job_id)["ingestionStatus"]
        if job["status"] in {"INDEXED", "FAILED", "CANCELLED"}:
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} not done in {within} s:\n{server.log.read_text()}")


def test_a_queued_llm_ingest_is_extracted_by_the_servers_workers(stack: Stack) -> None:
    stack.fake.replier = answer
    urn = f"doc:{stack.client}"
    handle = graphql(
        stack.server, REQUEST,
        input={"sourceUrn": urn, "kind": "note", "content": CONTENT, "extraction": "LLM"},
        identity={"sourceKind": "note", "sourceId": urn, "contentVersion": "v1"},
    )["requestIngestion"]  # fmt: skip
    assert handle["__typename"] == "IngestionHandle", handle

    job = wait_for_end(stack.server, handle["jobId"])
    assert job["status"] == "INDEXED", (job, stack.server.log.read_text())

    chats = [r for r in stack.fake.records if r.endpoint == "/api/chat"]
    assert len(chats) == 1 and chats[0].priority == "3"
    subgraph = graphql(stack.server, NEIGHBORS, key="service:ledger")["neighbors"]
    [edge] = [e for e in subgraph["edges"] if e["edgeType"] == "uses"]
    assert (edge["fromKey"], edge["toKey"], edge["evidenceCount"]) == (
        "service:ledger", "database:postgres", 1,
    )  # fmt: skip
    assert (edge["extractedBy"], edge["extractionConfidence"]) == ("llm:qwen2.5:7b", 0.9)
    [evidence] = edge["evidence"]
    assert (evidence["sourceUrn"], evidence["content"]) == (urn, CONTENT)
    ledger = next(n for n in subgraph["nodes"] if n["key"] == "service:ledger")
    assert ledger["properties"].get("description") == "Keeps the invoices."

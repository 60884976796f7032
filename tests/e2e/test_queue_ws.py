"""The live queue over real websockets: both protocols, keys in connection_init."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
import websockets

from tests.support.server_process import Server
from tests.support.ws_client import LEGACY_WS, TRANSPORT_WS, ws_subscribe

pytestmark = pytest.mark.e2e


@pytest.fixture
def server(working_server: Server) -> Server:
    """Jobs must run here: the module's server has queue workers."""
    return working_server


REQUEST = """mutation R($input: IngestInput!, $identity: IngestionIdentityInput!) {
  requestIngestion(input: $input, identity: $identity) {
    __typename ... on IngestionHandle { jobId status } } }"""
PROGRESS = "subscription P($id: ID!) { ingestionProgress(jobId: $id) { status stage version } }"
QUEUE = """subscription { queueStatus(first: 5) {
  workersAlive changes { jobId status stage } } }"""


def request_job(server: Server, urn: str) -> str:
    variables = {
        "input": {"sourceUrn": urn, "kind": "note", "content": f"About {urn}.", "priority": 3},
        "identity": {"sourceKind": "e2e", "contentVersion": "v1"},
    }
    answer = httpx.post(
        f"{server.url}/graphql",
        json={"query": REQUEST, "variables": variables},
        headers=server.headers,
        timeout=10,
    ).json()
    handle = answer["data"]["requestIngestion"]
    assert handle["__typename"] == "IngestionHandle", answer
    return str(handle["jobId"])


@pytest.mark.parametrize("protocol", [TRANSPORT_WS, LEGACY_WS])
async def test_progress_ends_with_the_terminal_status_and_completes(
    server: Server, protocol: str
) -> None:
    job_id = request_job(server, f"urn:e2e:progress:{protocol}:{id(server)}")
    seen: list[dict[str, Any]] = []

    async def follow() -> None:
        stream = ws_subscribe(server.ws_url, server.headers, PROGRESS, {"id": job_id}, protocol)
        async for data in stream:
            seen.append(data["ingestionProgress"])

    await asyncio.wait_for(follow(), 30)
    assert seen[-1]["status"] in ("INDEXED", "SKIPPED_DUPLICATE")
    versions = [job["version"] for job in seen]
    assert versions == sorted(set(versions))


@pytest.mark.parametrize("protocol", [TRANSPORT_WS, LEGACY_WS])
async def test_queue_status_sends_a_snapshot_then_the_jobs_changes(
    server: Server, protocol: str
) -> None:
    stream = ws_subscribe(server.ws_url, server.headers, QUEUE, None, protocol)
    first = await asyncio.wait_for(anext(stream), 15)
    assert first["queueStatus"]["changes"] == []
    job_id = request_job(server, f"urn:e2e:queue:{protocol}:{id(stream)}")
    statuses: list[str] = []
    for _ in range(50):
        update = (await asyncio.wait_for(anext(stream), 15))["queueStatus"]
        statuses += [c["status"] for c in update["changes"] if c["jobId"] == job_id]
        if "INDEXED" in statuses:
            break
    assert statuses[0] == "QUEUED" and statuses[-1] == "INDEXED"
    await stream.aclose()


async def test_a_subscription_without_a_key_is_refused(server: Server) -> None:
    with pytest.raises((ConnectionRefusedError, websockets.ConnectionClosed)):
        async for _ in ws_subscribe(server.ws_url, {}, QUEUE):
            pass

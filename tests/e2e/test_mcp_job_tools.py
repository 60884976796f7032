"""The MCP job tools over real HTTP, on a server with queue workers: an agent queues a
document (request_ingestion), follows it with job_status until it is indexed and finds it
with list_jobs; a bad page is refused naming its argument, and another client's agent sees
neither the job nor any listing of it."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from mcp.client import ClientSession

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.mcp_session import call, mcp_session, refusal
from tests.support.server_process import Server, create_key

pytestmark = pytest.mark.e2e


@dataclass(frozen=True)
class JobKeys:
    agent_a: str
    agent_b: str


@pytest.fixture(scope="module")
def keys(migrated_settings: Settings) -> JobKeys:
    a, b = f"mcp-jobs-a-{uuid.uuid4().hex[:6]}", f"mcp-jobs-b-{uuid.uuid4().hex[:6]}"
    return JobKeys(
        asyncio.run(create_key(migrated_settings, Scope(a, "web"), Role.AGENT)),
        asyncio.run(create_key(migrated_settings, Scope(b, "web"), Role.AGENT)),
    )


DOCUMENT = {
    "source_urn": "wiki:mcp-jobs-runbook",
    "kind": "wiki_page",
    "content": "When logins fail, check service:auth first.",
    "source_kind": "wiki",
    "content_version": "rev-1",
}


async def _finished(session: ClientSession, job_id: str) -> dict[str, Any]:
    """``job_status`` until the job leaves QUEUED and RUNNING (30 s at most)."""
    for _ in range(150):
        job = await call(session, "job_status", job_id=job_id)
        if job["status"] not in ("QUEUED", "RUNNING"):
            return job
        await asyncio.sleep(0.2)
    raise AssertionError(f"job {job_id} still {job['status']}")


async def test_an_agent_follows_its_queued_job_and_lists_it(
    working_server: Server, keys: JobKeys
) -> None:
    async with mcp_session(working_server.url, keys.agent_a) as session:
        [queued] = (await call(session, "request_ingestion", documents=[DOCUMENT]))["results"]
        assert queued["status"] == "QUEUED", queued
        job = await _finished(session, queued["jobId"])
        listed = await call(session, "list_jobs", statuses=["INDEXED"], first=10)
        by_source = await call(session, "list_jobs", source_urn=DOCUMENT["source_urn"])
    assert (job["id"], job["status"], job["lastError"]) == (queued["jobId"], "INDEXED", None)
    assert job["sourceUrn"] == DOCUMENT["source_urn"] and job["lane"] == "BULK"
    assert job["progress"] is None  # counts are a crawl's; this is a document job
    assert queued["jobId"] in [j["id"] for j in listed["jobs"]]
    assert [j["id"] for j in by_source["jobs"]] == [queued["jobId"]]
    assert by_source["hasNextPage"] is False


async def test_a_bad_page_is_refused_naming_its_argument(
    working_server: Server, keys: JobKeys
) -> None:
    async with mcp_session(working_server.url, keys.agent_a) as session:
        too_many = await session.call_tool("list_jobs", {"first": 501})
        claim = await session.call_tool(
            "list_jobs", {"statuses": ["INDEXED"], "order_by": "CLAIM_ORDER"}
        )
        unknown = await session.call_tool("job_status", {"job_id": str(uuid.uuid4())})
    assert refusal(too_many).startswith("INVALID: first must be 1..500 (field: first)")
    assert refusal(claim).startswith("INVALID") and refusal(claim).endswith("(field: orderBy)")
    assert refusal(unknown).startswith("NOT_FOUND")


async def test_another_client_sees_nothing_of_the_job(
    working_server: Server, keys: JobKeys
) -> None:
    async with mcp_session(working_server.url, keys.agent_a) as session:
        document = {**DOCUMENT, "source_urn": "wiki:mcp-jobs-private"}
        [queued] = (await call(session, "request_ingestion", documents=[document]))["results"]
        own = await call(session, "job_status", job_id=queued["jobId"])
    assert own["id"] == queued["jobId"], "client A sees its job: the checks below can fail"
    async with mcp_session(working_server.url, keys.agent_b) as other:
        status = await other.call_tool("job_status", {"job_id": queued["jobId"]})
        listed = await call(other, "list_jobs", first=500)
    assert refusal(status).startswith("NOT_FOUND")
    assert listed["jobs"] == []

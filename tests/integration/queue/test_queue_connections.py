"""The connection lifecycle: register (summary queued), cursors, revoke (cancel + purge)."""

from __future__ import annotations

import asyncio
import logging

import asyncpg
import pytest

from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.runtime import Runtime
from tests.support.graphql_api import Api
from tests.support.queue_api import agent, job_status, request

pytestmark = pytest.mark.integration

REGISTER = """mutation R($input: RegisterConnectionInput!) { registerConnection(input: $input) {
  __typename
  ... on RegisterConnectionSuccess {
    connection { connectionId authority label status allowedSourceKinds root owner
                 scope { clientId } }
    summary { jobId status } }
  ... on SensitiveContentError { code field findings { kind line } }
  ... on ValidationError { code field }
  ... on ConnectionRevokedError { code connectionId } } }"""
CURSOR = """mutation C($id: String!, $name: String!, $value: String!) {
  updateSyncCursor(connectionId: $id, cursorName: $name, value: $value) {
    __typename ... on SyncCursor { name value } ... on ConnectionRevokedError { code } } }"""
READ = """query Q($id: String!) { connection(connectionId: $id) {
  status revokeReason syncCursors { name value updatedAt } } }"""
REVOKE = """mutation V($id: String!, $reason: String!) {
  revokeConnection(connectionId: $id, reason: $reason) {
    __typename ... on RevokeConnectionSuccess {
      connection { status revokeReason revokedAt } cancelledJobs
      purged { sources chunks evidenceRemoved edgesDeleted verticesDeleted } }
    ... on NotFoundError { code } ... on ScopeError { code } } }"""
INGEST = """mutation I($input: IngestInput!) { ingest(input: $input) {
  __typename ... on ConnectionRevokedError { code message connectionId } } }"""


def connection(**extra: object) -> dict[str, object]:
    return {
        "connectionId": "drive-1",
        "authority": "google",
        "label": "Team drive",
        "root": "/Shared/Team",
        "owner": "ann@example.com",
        "allowedSourceKinds": ["drive"],
        **extra,
    }


async def test_register_stores_it_and_queues_a_summary_without_credentials(
    qapi: Api, queue_pool: asyncpg.Pool
) -> None:
    done = (await qapi(REGISTER, input=connection()))["registerConnection"]
    assert done["connection"]["status"] == "ACTIVE"
    assert done["summary"]["status"] == "QUEUED"
    payload = await queue_pool.fetchval(
        "SELECT payload->'request'->>'content' FROM ingestion_jobs WHERE id = $1",
        done["summary"]["jobId"],
    )
    assert "Team drive" in payload and "google" in payload and "/Shared/Team" in payload
    leaky = await qapi(
        REGISTER, input=connection(connectionId="d2", label="drive AKIAIOSFODNN7EXAMPLF")
    )
    assert leaky["registerConnection"]["__typename"] == "SensitiveContentError"
    assert await queue_pool.fetchval("SELECT count(*) FROM connections") == 1
    # In the connection's id (an identifier, in every URN of the connection), refused before
    # the connection is stored, the token followed by more characters or not.
    token = "ghp_" + "A1b2C3d4E5" * 3 + "F6g7H8"
    for connection_id in (f"id-{token}", f"c{token}x"):
        refused = await qapi(REGISTER, input=connection(connectionId=connection_id))
        answer = refused["registerConnection"]
        assert (answer["__typename"], answer["field"]) == ("SensitiveContentError", "connectionId")
    assert await queue_pool.fetchval("SELECT count(*) FROM connections") == 1


async def test_sync_cursors_are_stored_and_read_back(qapi: Api) -> None:
    await qapi(REGISTER, input=connection())
    for value in ("page-1", "page-2"):
        stored = await qapi(CURSOR, id="drive-1", name="changes", value=value)
        assert stored["updateSyncCursor"] == {
            "__typename": "SyncCursor",
            "name": "changes",
            "value": value,
        }
    await qapi(CURSOR, id="drive-1", name="a-first", value="x")
    cursors = (await qapi(READ, id="drive-1"))["connection"]["syncCursors"]
    assert [(c["name"], c["value"]) for c in cursors] == [("a-first", "x"), ("changes", "page-2")]


async def test_revoke_cancels_queued_work_purges_everything_and_refuses_more(
    qruntime: Runtime, qapi: Api, queue_pool: asyncpg.Pool, caplog: pytest.LogCaptureFixture
) -> None:
    await qapi(REGISTER, input=connection())
    indexed = await request(
        qapi, "urn:drive/a", connectionId="drive-1", sourceKind="drive", priority=1
    )
    queued = await request(qapi, "urn:drive/b", connectionId="drive-1", sourceKind="drive")
    # Index the priority job only; the bulk lane (with the summary) stays queued.
    claimed = await qruntime.queue.work.claim(Lane.PRIORITY, "test/1", 60)
    assert claimed is not None and claimed.job.id == indexed["jobId"]
    assert await run_job(claimed, qruntime.queue.work, qruntime.job_deps()) is JobStatus.INDEXED
    chunks = await queue_pool.fetchval(
        "SELECT count(*) FROM chunks WHERE connection_id = 'drive-1'"
    )
    assert chunks >= 1
    pending = await queue_pool.fetchval(
        "SELECT count(*) FROM ingestion_jobs WHERE connection_id = 'drive-1' AND status = 'QUEUED'"
    )
    with caplog.at_level(logging.INFO, logger="kenning.ingestion"):
        revoked = (await qapi(REVOKE, id="drive-1", reason="user left"))["revokeConnection"]
    assert revoked["connection"]["status"] == "REVOKED"
    assert revoked["cancelledJobs"] == pending >= 1
    assert revoked["purged"]["chunks"] == chunks and revoked["purged"]["sources"] >= 1
    assert (
        await queue_pool.fetchval("SELECT count(*) FROM chunks WHERE connection_id = 'drive-1'")
        == 0
    )
    job = await job_status(qapi, queued["jobId"])
    assert job is not None and job["status"] == "CANCELLED"
    events = [r for r in caplog.records if r.getMessage() == "ingestion.connection.purged"]
    assert events and events[0].__dict__["chunks"] == chunks
    refused = await request(qapi, "urn:drive/c", connectionId="drive-1", sourceKind="drive")
    assert refused["__typename"] == "ConnectionRevokedError"
    sync = await qapi(
        INGEST,
        input={
            "sourceUrn": "urn:drive/d",
            "kind": "note",
            "content": "x",
            "connectionId": "drive-1",
        },
    )
    assert sync["ingest"]["__typename"] == "ConnectionRevokedError"
    cursor = await qapi(CURSOR, id="drive-1", name="changes", value="page-3")
    assert cursor["updateSyncCursor"]["__typename"] == "ConnectionRevokedError"
    again = await qapi(REGISTER, input=connection())
    assert again["registerConnection"]["__typename"] == "ConnectionRevokedError"


async def test_a_job_running_while_its_connection_is_revoked_commits_nothing(
    qruntime: Runtime, qapi: Api, queue_pool: asyncpg.Pool
) -> None:
    await qapi(REGISTER, input=connection(allowedSourceKinds=[]))
    await queue_pool.execute("UPDATE ingestion_jobs SET status = 'CANCELLED'")  # the summary
    handle = await request(qapi, "urn:drive/late", connectionId="drive-1")
    claimed = await qruntime.queue.work.claim(Lane.BULK, "test/1", 60)
    assert claimed is not None
    await qapi(REVOKE, id="drive-1", reason="gone")
    status = await run_job(claimed, qruntime.queue.work, qruntime.job_deps())
    assert status is not None and status.value == "CANCELLED"
    assert await queue_pool.fetchval("SELECT count(*) FROM chunks") == 0
    job = await job_status(qapi, handle["jobId"])
    assert job is not None and "revoked" in job["lastError"]


async def test_source_kinds_outside_the_allowed_ones_are_refused(qapi: Api) -> None:
    await qapi(REGISTER, input=connection())
    refused = await request(qapi, "urn:x", connectionId="drive-1", sourceKind="mail")
    assert (refused["__typename"], refused["field"]) == ("ValidationError", "sourceKind")


async def test_other_clients_cannot_see_or_revoke_a_connection(qruntime: Runtime) -> None:
    acme, globex = Api(qruntime, agent("acme")), Api(qruntime, agent("globex"))
    await acme(REGISTER, input=connection())
    assert (await globex(READ, id="drive-1"))["connection"] is None
    revoked = await globex(REVOKE, id="drive-1", reason="x")
    assert revoked["revokeConnection"]["__typename"] == "NotFoundError"
    await asyncio.sleep(0)

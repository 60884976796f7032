"""requestIngestion, ingestionStatus and jobs on the real database (no workers running)."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from kenning.domain.access.principal import Role
from kenning.runtime import Runtime
from tests.support.graphql_api import Api
from tests.support.queue_api import JOB_FIELDS, REQUEST, agent, doc, identity, job_status, request

pytestmark = pytest.mark.integration

JOBS = f"""query Jobs($filter: JobFilterInput, $first: Int!, $after: String) {{
  jobs(filter: $filter, first: $first, after: $after) {{
    nodes {{ {JOB_FIELDS} }} endCursor hasNextPage }} }}"""


async def test_a_request_is_queued_with_its_position_in_the_lane(qapi: Api) -> None:
    first = await request(qapi, "urn:a")
    second = await request(qapi, "urn:b")
    urgent = await request(qapi, "urn:c", priority=1)
    assert (first["status"], first["position"]) == ("QUEUED", 1)
    assert (second["status"], second["position"]) == ("QUEUED", 2)
    assert (urgent["status"], urgent["position"]) == ("QUEUED", 1)  # the other lane
    job = await job_status(qapi, second["jobId"])
    assert job is not None
    assert (job["status"], job["lane"], job["priority"], job["position"]) == (
        "QUEUED",
        "BULK",
        3,
        2,
    )
    assert (job["attempts"], job["stage"], job["version"]) == (0, None, 0)


async def test_the_same_identity_in_flight_is_a_duplicate_of_the_one_job(
    qapi: Api, queue_pool: asyncpg.Pool
) -> None:
    handles = await asyncio.gather(*(request(qapi, "urn:same") for _ in range(20)))
    assert sorted(h["status"] for h in handles) == ["DUPLICATE"] * 19 + ["QUEUED"]
    assert len({h["jobId"] for h in handles}) == 1
    assert await queue_pool.fetchval("SELECT count(*) FROM ingestion_jobs") == 1
    newer = await request(qapi, "urn:same", version="v2")
    assert newer["status"] == "QUEUED" and newer["jobId"] != handles[0]["jobId"]


async def test_the_partial_unique_index_refuses_a_second_in_flight_row(
    qapi: Api, queue_pool: asyncpg.Pool
) -> None:
    handle = await request(qapi, "urn:race")
    with pytest.raises(asyncpg.UniqueViolationError):
        await queue_pool.execute(
            """INSERT INTO ingestion_jobs (id, idempotency_key, status, lane, priority, payload)
               SELECT 'twin', idempotency_key, 'RUNNING', lane, priority, payload
               FROM ingestion_jobs WHERE id = $1""",
            handle["jobId"],
        )


async def test_secrets_and_bad_input_are_refused_before_anything_is_queued(
    qapi: Api, queue_pool: asyncpg.Pool
) -> None:
    leaked = await qapi(
        REQUEST,
        input=doc("urn:s", "deploy with AKIAIOSFODNN7EXAMPLF please"),
        identity=identity("urn:s"),
    )
    assert leaked["requestIngestion"]["__typename"] == "SensitiveContentError"
    empty = await qapi(
        REQUEST, input=doc("urn:e", " "), identity={**identity("urn:e"), "contentVersion": ""}
    )
    assert empty["requestIngestion"]["__typename"] == "ValidationError"
    assert await queue_pool.fetchval("SELECT count(*) FROM ingestion_jobs") == 0


async def test_redact_stores_the_redacted_text_only(qapi: Api, queue_pool: asyncpg.Pool) -> None:
    await qapi(
        REQUEST,
        input=doc("urn:r", "key AKIAIOSFODNN7EXAMPLF here", secretPolicy="REDACT"),
        identity=identity("urn:r"),
    )
    payload = await queue_pool.fetchval("SELECT payload::text FROM ingestion_jobs")
    assert "AKIAIOSFODNN7EXAMPLF" not in payload


async def test_jobs_page_newest_first_with_cursors_and_filters(qapi: Api) -> None:
    ids = [(await request(qapi, f"urn:p{n}"))["jobId"] for n in range(5)]
    await request(qapi, "urn:fast", priority=0)
    seen: list[str] = []
    after = None
    for _ in range(10):
        data = await qapi(JOBS, filter={"lane": "BULK"}, first=2, after=after)
        page = data["jobs"]
        seen += [job["id"] for job in page["nodes"]]
        after = page["endCursor"]
        if not page["hasNextPage"]:
            break
    assert seen == ids[::-1]
    failed = await qapi(JOBS, filter={"statuses": ["FAILED"]}, first=10)
    assert failed["jobs"]["nodes"] == []


async def test_clients_see_only_their_jobs_and_readers_cannot_control_them(
    qruntime: Runtime,
) -> None:
    acme, globex = Api(qruntime, agent("acme")), Api(qruntime, agent("globex"))
    mine = await request(acme, "urn:secret-plans")
    assert await job_status(globex, mine["jobId"]) is None
    assert (await globex(JOBS, first=10))["jobs"]["nodes"] == []
    assert (await job_status(acme, mine["jobId"])) is not None
    cancel = "mutation C($id: ID!) { cancelJob(jobId: $id) { __typename } }"
    assert (await globex(cancel, id=mine["jobId"]))["cancelJob"]["__typename"] == "NotFoundError"
    reader = Api(qruntime, agent("acme", Role.UI))
    assert (await reader(cancel, id=mine["jobId"]))["cancelJob"]["__typename"] == "ScopeError"

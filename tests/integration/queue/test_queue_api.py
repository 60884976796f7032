"""The queue API a UI needs: positions wherever a queued job shows, claim order, batch
requests and bulk cancel — on the real database, no workers running."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.runtime import Runtime
from tests.support.graphql_api import Api
from tests.support.queue_api import JOB_FIELDS, agent, doc, identity, request, subscribe

pytestmark = pytest.mark.integration

JOBS = f"""query Jobs($filter: JobFilterInput, $first: Int!, $after: String,
                      $orderBy: JobOrder!) {{
  jobs(filter: $filter, first: $first, after: $after, orderBy: $orderBy) {{
    nodes {{ {JOB_FIELDS} }} endCursor hasNextPage }} }}"""
REQUEST_MANY = """mutation Many($inputs: [IngestionRequestInput!]!) {
  requestIngestions(inputs: $inputs) {
    __typename ... on IngestionHandle { jobId status position }
    ... on Error { code field message } } }"""
CANCEL_MANY = """mutation Cancel($filter: JobFilterInput!) { cancelJobs(filter: $filter) {
  __typename ... on CancelJobsSuccess { cancelled more jobs { id status } }
  ... on Error { code message } } }"""
RETRY = "mutation($id: ID!) { retryJob(jobId: $id) { ... on IngestionJob { status position } } }"


async def jobs(api: Api, order: str = "NEWEST", **variables: Any) -> dict[str, Any]:
    data = await api(JOBS, orderBy=order, first=variables.pop("first", 50), **variables)
    page: dict[str, Any] = data["jobs"]
    return page


async def test_every_listed_queued_job_has_its_position(qapi: Api) -> None:
    urns = [f"urn:{n}" for n in range(5)]
    for urn in urns:
        await request(qapi, urn)
    page = await jobs(qapi, filter={"statuses": ["QUEUED"]})
    # Newest first, each with its rank in the lane.
    assert [(j["sourceUrn"], j["position"]) for j in page["nodes"]] == [
        (urn, 5 - i) for i, urn in enumerate(reversed(urns))
    ]


async def test_claim_order_lists_the_priority_lane_first_and_pages_by_its_own_cursor(
    qapi: Api,
) -> None:
    for n in range(4):
        await request(qapi, f"urn:bulk-{n}")
    await request(qapi, "urn:urgent", priority=1)
    await request(qapi, "urn:more-urgent", priority=0)
    first = await jobs(qapi, "CLAIM_ORDER", first=3)
    rest = await jobs(qapi, "CLAIM_ORDER", first=3, after=first["endCursor"])
    listed = [(j["sourceUrn"], j["lane"], j["position"]) for j in first["nodes"] + rest["nodes"]]
    assert listed == [
        ("urn:more-urgent", "PRIORITY", 1),
        ("urn:urgent", "PRIORITY", 2),
        ("urn:bulk-0", "BULK", 1),
        ("urn:bulk-1", "BULK", 2),
        ("urn:bulk-2", "BULK", 3),
        ("urn:bulk-3", "BULK", 4),
    ]
    assert first["hasNextPage"] and not rest["hasNextPage"]


async def test_claim_order_refuses_other_statuses_and_cursors_of_the_other_order(
    qapi: Api,
) -> None:
    await request(qapi, "urn:a")
    await request(qapi, "urn:b")
    newest = await jobs(qapi, first=1)
    variables = {"orderBy": "CLAIM_ORDER", "first": 5}
    wrong_cursor = await qapi.execute(JOBS, after=newest["endCursor"], **variables)
    failed = await qapi.execute(JOBS, filter={"statuses": ["FAILED"]}, **variables)
    for result, field in ((wrong_cursor, "after"), (failed, "orderBy")):
        assert result.errors is not None
        extensions = result.errors[0].extensions or {}
        assert (extensions["code"], extensions["field"]) == ("BAD_USER_INPUT", field)


async def test_a_retried_job_comes_back_with_its_position(qapi: Api) -> None:
    handle = await request(qapi, "urn:retried")
    await request(qapi, "urn:other")
    cancel = "mutation($id: ID!) { cancelJob(jobId: $id) { __typename } }"
    await qapi(cancel, id=handle["jobId"])
    retried = (await qapi(RETRY, id=handle["jobId"]))["retryJob"]
    assert retried == {"status": "QUEUED", "position": 1}


async def test_request_ingestions_queues_a_batch_with_one_result_per_item(
    qapi: Api, queue_pool: asyncpg.Pool
) -> None:
    items = [{"input": doc(f"urn:batch-{n}"), "identity": identity(f"urn:batch-{n}")}
             for n in range(200)]  # fmt: skip
    items[7]["input"]["kind"] = "not a kind!"  # one bad item does not stop the others
    items[9] = items[8]  # the same work twice in one batch is a duplicate
    results = (await qapi(REQUEST_MANY, inputs=items))["requestIngestions"]
    assert len(results) == 200
    assert (results[7]["__typename"], results[7]["field"]) == ("ValidationError", "kind")
    assert results[9]["status"] == "DUPLICATE" and results[9]["jobId"] == results[8]["jobId"]
    queued = [
        r for r in results if r["__typename"] == "IngestionHandle" and r["status"] == "QUEUED"
    ]
    assert len(queued) == 198
    assert [r["position"] for r in queued] == list(range(1, 199))
    assert await queue_pool.fetchval("SELECT count(*) FROM ingestion_jobs") == 198


async def test_request_ingestions_takes_at_most_a_thousand(qapi: Api) -> None:
    item = {"input": doc("urn:x"), "identity": identity("urn:x")}
    result = await qapi.execute(REQUEST_MANY, inputs=[item] * 1001)
    assert result.errors is not None
    extensions = result.errors[0].extensions or {}
    assert (extensions["code"], extensions["reason"], extensions["field"]) == (
        "BAD_USER_INPUT",
        "TOO_LARGE",
        "inputs",
    )


async def test_cancel_jobs_cancels_what_matches_inside_the_write_scope(
    qruntime: Runtime, queue_pool: asyncpg.Pool
) -> None:
    acme, globex = Api(qruntime, agent("acme")), Api(qruntime, agent("globex"))
    for n in range(3):
        await request(acme, f"urn:bulk-{n}")
    await request(acme, "urn:urgent", priority=1)
    await request(globex, "urn:theirs")
    result = (await acme(CANCEL_MANY, filter={"lane": "BULK"}))["cancelJobs"]
    assert (result["__typename"], result["cancelled"], result["more"]) == (
        "CancelJobsSuccess",
        3,
        False,
    )
    assert {j["status"] for j in result["jobs"]} == {"CANCELLED"}
    rows = await queue_pool.fetch("SELECT source_urn, status FROM ingestion_jobs ORDER BY 1")
    assert [(r["source_urn"], r["status"]) for r in rows] == [
        ("urn:bulk-0", "CANCELLED"),
        ("urn:bulk-1", "CANCELLED"),
        ("urn:bulk-2", "CANCELLED"),
        ("urn:theirs", "QUEUED"),
        ("urn:urgent", "QUEUED"),
    ]
    reader = Api(qruntime, agent("acme", Role.UI))
    refused = (await reader(CANCEL_MANY, filter={}))["cancelJobs"]
    assert (refused["__typename"], refused["code"]) == ("ScopeError", "OUT_OF_SCOPE")


async def test_ingestion_progress_shows_a_queued_job_with_its_position(qapi: Api) -> None:
    await request(qapi, "urn:first")
    handle = await request(qapi, "urn:second")
    stream = subscribe(
        qapi,
        "subscription($id: ID!) { ingestionProgress(jobId: $id) { status position } }",
        id=handle["jobId"],
    )
    now = await asyncio.wait_for(anext(stream), 10)
    assert now["ingestionProgress"] == {"status": "QUEUED", "position": 2}
    move = "mutation($id: ID!) { prioritizeQueueItem(jobId: $id) { __typename } }"
    await qapi(move, id=handle["jobId"])
    moved = await asyncio.wait_for(anext(stream), 10)
    assert moved["ingestionProgress"] == {"status": "QUEUED", "position": 1}
    await stream.aclose()


async def test_the_workers_part_says_when_a_worker_stopped(qruntime: Runtime) -> None:
    assert qruntime.queue.workers_state() == (True, "off (no workers in this process)")
    [worker] = await qruntime.queue.start_workers(qruntime.job_deps(), 1)
    assert worker.running and qruntime.queue.workers_state() == (True, "ok")
    # A slot that died (a bug, a cancelled task) makes this process unready.
    slot = worker._slots[0]
    slot.cancel()
    await asyncio.wait({slot})
    assert qruntime.queue.workers_state() == (False, "stopped: 0 of 1 workers running")
    await qruntime.queue.stop_workers()
    assert not worker.running


async def test_claim_order_counts_every_queued_job_but_lists_only_visible_ones(
    qruntime: Runtime,
) -> None:
    acme, globex = Api(qruntime, agent("acme")), Api(qruntime, agent("globex"))
    await request(acme, "urn:acme-1")
    await request(globex, "urn:globex-1")
    await request(acme, "urn:acme-2")
    page = await jobs(acme, "CLAIM_ORDER")
    # Positions are ranks in the whole lane (what a job waits behind); globex's job is
    # counted, never shown.
    assert [(j["sourceUrn"], j["position"]) for j in page["nodes"]] == [
        ("urn:acme-1", 1),
        ("urn:acme-2", 3),
    ]
    assert [j["sourceUrn"] for j in (await jobs(globex, "CLAIM_ORDER"))["nodes"]] == [
        "urn:globex-1"
    ]


async def test_a_claim_order_cursor_holds_across_a_moved_job(qapi: Api) -> None:
    handles = [await request(qapi, f"urn:{n}") for n in range(4)]
    move = "mutation($id: ID!) { reorderQueueItem(jobId: $id, position: 2) { __typename } }"
    await qapi(move, id=handles[3]["jobId"])  # urn:3 now has a queue_position
    first = await jobs(qapi, "CLAIM_ORDER", first=2)
    rest = await jobs(qapi, "CLAIM_ORDER", first=5, after=first["endCursor"])
    assert [j["sourceUrn"] for j in first["nodes"] + rest["nodes"]] == [
        "urn:0",
        "urn:3",
        "urn:1",
        "urn:2",
    ]


async def test_cancel_jobs_stays_inside_a_project_key_and_needs_a_filter(
    qruntime: Runtime, queue_pool: asyncpg.Pool
) -> None:
    web = Principal(key_id="web", scope=Scope("acme", "web"), role=Role.AGENT)
    client = Api(qruntime, agent("acme"))
    await request(client, "urn:web", scope={"clientId": "acme", "projectId": "web"})
    await request(client, "urn:mobile", scope={"clientId": "acme", "projectId": "mobile"})
    await request(client, "urn:client-wide")
    project = Api(qruntime, web)
    empty = (await project(CANCEL_MANY, filter={}))["cancelJobs"]
    assert (empty["__typename"], empty["code"]) == ("ValidationError", "INVALID")
    done = (await project(CANCEL_MANY, filter={"lane": "BULK"}))["cancelJobs"]
    assert done["cancelled"] == 1
    rows = await queue_pool.fetch("SELECT source_urn, status FROM ingestion_jobs ORDER BY 1")
    assert [(r["source_urn"], r["status"]) for r in rows] == [
        ("urn:client-wide", "QUEUED"),
        ("urn:mobile", "QUEUED"),
        ("urn:web", "CANCELLED"),
    ]

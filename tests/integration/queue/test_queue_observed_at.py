"""``requestIngestion(s)`` share ``IngestInput``: its ``observedAt`` rides in the queued
payload, a worker stores it on the chunks, and the edges they are evidence for are valid
from it; a bad one is refused when asked, naming ``observedAt``, with no job queued."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import asyncpg
import pytest

from kenning.runtime import Runtime
from tests.support.graphql_api import Api
from tests.support.queue_api import REQUEST, doc, identity, job_status, request, wait_for

pytestmark = pytest.mark.integration

REQUESTS = """mutation($items: [IngestionRequestInput!]!) {
  requestIngestions(inputs: $items) {
    __typename ... on IngestionHandle { jobId status } ... on ValidationError { field } } }"""
CHUNK = """query($id: ID!) { chunk(id: $id) { observedAt } }"""
EDGES = """query($key: String!) {
  node(key: $key) { edges(direction: OUT) { to { key } validFrom } } }"""
CONTENT = "{urn} says billing needs auth.\n\nservice:{name}|depends_on|service:auth"


async def _indexed(api: Api, *job_ids: str) -> None:
    async def done() -> bool:
        jobs = [await job_status(api, job_id) for job_id in job_ids]
        return all(job is not None and job["status"] == "INDEXED" for job in jobs)

    await wait_for(done, 30)


async def _observed(api: Api, pool: asyncpg.Pool, urn: str) -> list[datetime]:
    ids = await pool.fetch("SELECT id FROM chunks WHERE source_urn = $1 ORDER BY ordinal", urn)
    return [
        datetime.fromisoformat((await api(CHUNK, id=row["id"]))["chunk"]["observedAt"])
        for row in ids
    ]


async def _valid_from(api: Api, key: str) -> list[tuple[str, datetime]]:
    edges = (await api(EDGES, key=key))["node"]["edges"]
    return [(e["to"]["key"], datetime.fromisoformat(e["validFrom"])) for e in edges]


def _item(urn: str, name: str, at: str) -> dict[str, Any]:
    content = CONTENT.format(urn=urn, name=name)
    return {"input": doc(urn, content, observedAt=at), "identity": identity(urn)}


async def test_observed_at_reaches_the_job_and_its_stored_chunks(
    qruntime: Runtime, qapi: Api, queue_pool: asyncpg.Pool
) -> None:
    one = await request(
        qapi, "urn:one", content=CONTENT.format(urn="one", name="billing"),
        observedAt="2021-02-03T04:05:06+01:00",
    )  # fmt: skip
    many = await qapi(REQUESTS, items=[_item("urn:two", "ledger", "2020-01-01T00:00:00Z")])
    two = many["requestIngestions"][0]
    payload = await queue_pool.fetchval(
        "SELECT payload -> 'request' ->> 'observedAt' FROM ingestion_jobs WHERE id::text = $1",
        one["jobId"],
    )
    assert payload == "2021-02-03T03:05:06.000000Z"
    await qruntime.queue.start_workers(qruntime.job_deps(), 1)
    await _indexed(qapi, one["jobId"], two["jobId"])
    first, second = datetime(2021, 2, 3, 3, 5, 6, tzinfo=UTC), datetime(2020, 1, 1, tzinfo=UTC)
    assert set(await _observed(qapi, queue_pool, "urn:one")) == {first}
    assert set(await _observed(qapi, queue_pool, "urn:two")) == {second}
    assert await _valid_from(qapi, "service:billing") == [("service:auth", first)]
    assert await _valid_from(qapi, "service:ledger") == [("service:auth", second)]


async def test_a_bad_observed_at_is_refused_when_asked(qapi: Api, queue_pool: asyncpg.Pool) -> None:
    naive = doc("urn:naive", observedAt="2021-02-03T04:05:06")
    refused = await qapi(REQUEST, input=naive, identity=identity("urn:naive"))
    assert refused["requestIngestion"]["field"] == "observedAt"
    many = await qapi(REQUESTS, items=[_item("urn:old", "old", "1899-12-31T00:00:00Z")])
    assert many["requestIngestions"] == [{"__typename": "ValidationError", "field": "observedAt"}]
    assert await queue_pool.fetchval("SELECT count(*) FROM ingestion_jobs") == 0

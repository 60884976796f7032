"""Where observedAt comes from on the structured paths, on the real stack through GraphQL:
``ingestGraph`` and ``loadKnowledge`` take the writer's (checked like ``ingest``'s, field
``observedAt``), ``ingestGitCommits`` the commit's author date; each shows as the chunks'
``observedAt`` and the ``validFrom`` of the edges they are evidence for."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.support.graphql_api import Api
from tests.support.ingest_documents import INGEST_GRAPH

pytestmark = pytest.mark.integration

CHUNK = """query($id: ID!) { chunk(id: $id) { observedAt } }"""
EDGES = """query($key: String!) {
  node(key: $key) { edges(direction: OUT) { to { key } edgeType validFrom } } }"""
LOAD = """mutation($json: JSON!, $urn: String!, $at: DateTime) {
  loadKnowledge(json: $json, sourceUrn: $urn, observedAt: $at) {
    __typename
    ... on IngestGraphSuccess { status chunks { id } }
    ... on Error { code field message } } }"""
COMMITS = """mutation($input: IngestGitCommitsInput!) {
  ingestGitCommits(input: $input) {
    __typename ... on IngestGitCommitsSuccess { commits { status } } } }"""
CHUNKS_OF = """query($kind: String!) { chunksByKind(kind: $kind) { sourceUrn observedAt } }"""

GRAPH = {
    "sourceUrn": "doc:billing-2024",
    "pieces": [{"ref": "p1", "content": "Billing runs on MySQL."}],
    "nodes": [{"key": "service:billing"}, {"key": "db:mysql"}],
    "edges": [{"from": "service:billing", "edgeType": "database", "to": "db:mysql",
               "evidence": ["p1"]}],
}  # fmt: skip
FILE = {
    "pieces": [{"id": "p1", "content": "John owns the auth service."}],
    "graph": {"edges": [{"source": "user:john", "relation": "OWNS", "target": "service:auth",
                         "evidence": ["p1"]}],
              "nodes": [{"id": "user:john"}, {"id": "service:auth"}]},
}  # fmt: skip


def _at(value: str | None) -> datetime | None:
    return None if value is None else datetime.fromisoformat(value)


def _recent(value: datetime | None) -> bool:
    """Whether ``value`` is the time of a store a moment ago."""
    now = datetime.now(UTC)
    return value is not None and now - timedelta(minutes=1) <= value <= now


async def _observed(api: Api, chunk_id: str) -> datetime | None:
    return _at((await api(CHUNK, id=chunk_id))["chunk"]["observedAt"])


async def _valid_from(api: Api, key: str) -> dict[str, datetime | None]:
    edges = (await api(EDGES, key=key))["node"]["edges"]
    return {f"{e['edgeType']}>{e['to']['key']}": _at(e["validFrom"]) for e in edges}


async def test_ingest_graph_observed_at_reaches_chunks_and_edges(api: Api) -> None:
    given = {**GRAPH, "observedAt": "2024-01-15T10:00:00+01:00"}
    result = (await api(INGEST_GRAPH, input=given))["ingestGraph"]
    assert result["status"] == "INDEXED", result
    when = datetime(2024, 1, 15, 9, tzinfo=UTC)
    assert await _observed(api, result["chunks"][0]["id"]) == when
    assert await _valid_from(api, "service:billing") == {"database>db:mysql": when}


async def test_without_observed_at_the_time_stored_is_used(api: Api) -> None:
    result = (await api(INGEST_GRAPH, input=GRAPH))["ingestGraph"]
    assert _recent(await _observed(api, result["chunks"][0]["id"]))
    assert _recent((await _valid_from(api, "service:billing"))["database>db:mysql"])


@pytest.mark.parametrize(
    ("value", "reason"),
    [("2024-01-15T09:00:00", "time zone"), ("1850-01-01T00:00:00Z", "1900")],
)
async def test_ingest_graph_refuses_a_bad_observed_at_naming_it(
    api: Api, value: str, reason: str
) -> None:
    result = (await api(INGEST_GRAPH, input={**GRAPH, "observedAt": value}))["ingestGraph"]
    assert result["__typename"] == "ValidationError"
    assert result["field"] == "observedAt" and reason in result["message"]
    assert (await api(EDGES, key="service:billing"))["node"] is None  # nothing stored


async def test_load_knowledge_observed_at_holds_for_every_piece(api: Api) -> None:
    loaded = await api(LOAD, json=FILE, urn="kb:team", at="2023-03-01T00:00:00Z")
    result = loaded["loadKnowledge"]
    assert result["status"] == "INDEXED", result
    when = datetime(2023, 3, 1, tzinfo=UTC)
    assert await _observed(api, result["chunks"][0]["id"]) == when
    assert await _valid_from(api, "user:john") == {"owns>service:auth": when}


async def test_load_knowledge_refuses_an_observed_at_in_the_future(api: Api) -> None:
    later = (datetime.now(UTC) + timedelta(days=3)).isoformat()
    result = (await api(LOAD, json=FILE, urn="kb:team", at=later))["loadKnowledge"]
    assert (result["__typename"], result["field"]) == ("ValidationError", "observedAt")


async def test_a_commit_is_observed_at_its_author_date(api: Api) -> None:
    commits = [
        {"hash": "a" * 40, "message": "Move billing to Postgres", "author": "Ada",
         "date": "2022-05-04T12:00:00+02:00", "branch": "main",
         "files": [{"path": "billing/db.py", "changeType": "M"}]},
        # An author date no one can mean: stored as of now, not refused.
        {"hash": "b" * 40, "message": "Time travel", "author": "Bob",
         "date": "1800-01-01T00:00:00Z", "files": [{"path": "x.py", "changeType": "A"}]},
    ]  # fmt: skip
    done = await api(COMMITS, input={"repository": "shop", "commits": commits})
    assert [c["status"] for c in done["ingestGitCommits"]["commits"]] == ["INDEXED"] * 2
    chunks = {c["sourceUrn"]: _at(c["observedAt"])
              for c in (await api(CHUNKS_OF, kind="git_commit"))["chunksByKind"]}  # fmt: skip
    authored = datetime(2022, 5, 4, 10, tzinfo=UTC)
    assert chunks[f"git:shop@{'a' * 40}"] == authored
    assert _recent(chunks[f"git:shop@{'b' * 40}"])
    edges = await _valid_from(api, f"commit:{'a' * 40}")
    assert edges == {"modifies>file:billing/db.py": authored}

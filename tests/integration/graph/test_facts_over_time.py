"""Facts over time on the real stack, through GraphQL: a relation declared ONE ends the
older edge when a newer assertion arrives (by observedAt, not arrival), a backfill lands
already ended, purging the newer source re-opens the older edge, ``asOf`` answers as the
world was, ``retractEdge`` ends an edge and keeps it in ``edgeHistory``, and bad times are
refused with the field named."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

INGEST = """
mutation($urn: String!, $content: String!, $at: DateTime) {
  ingest(input: {sourceUrn: $urn, kind: "note", content: $content, observedAt: $at}) {
    __typename ... on Error { code field message }
  }
}"""
DEFINE = """
mutation($type: String!, $cardinality: Cardinality!) {
  defineRelation(edgeType: $type, cardinality: $cardinality, description: "its database") {
    __typename
    ... on DefineRelationSuccess { edgesEnded relation { edgeType cardinality definedBy } }
    ... on Error { code field message }
  }
}"""
EDGES = """
query($key: String!, $asOf: DateTime) {
  node(key: $key, asOf: $asOf) {
    edges(direction: OUT) { to { key } validFrom validTo endedReason endedBy }
  }
}"""
HISTORY = """
query($from: String!, $type: String!, $to: String) {
  edgeHistory(from: $from, edgeType: $type, to: $to) {
    to validFrom validTo endedReason endedBy
  }
}"""
RETRACT = """
mutation($from: String!, $type: String!, $to: String!) {
  retractEdge(from: $from, edgeType: $type, to: $to) {
    __typename ... on RetractEdgeSuccess { retracted } ... on Error { code field message }
  }
}"""
PURGE = """mutation($urn: String!) { purgeSource(sourceUrn: $urn) { __typename } }"""

AGENT = Principal(key_id="agent-1", scope=Scope("acme"), role=Role.AGENT)


@pytest.fixture
def acme(api: Api, clean: None) -> Api:
    return api.as_(AGENT)


async def _say(api: Api, urn: str, target: str, at: str | None) -> None:
    content = f"The billing service stores its data.\n\nservice:billing|database|{target}"
    data = await api(INGEST, urn=urn, content=content, at=at)
    assert data["ingest"]["__typename"] == "IngestSuccess", data


async def _current(api: Api, as_of: str | None = None) -> list[dict[str, Any]]:
    node = (await api(EDGES, key="service:billing", asOf=as_of))["node"]
    return [] if node is None else node["edges"]


async def test_a_newer_assertion_ends_the_older_one_and_as_of_sees_the_past(acme: Api) -> None:
    declared = await acme(DEFINE, type="database", cardinality="ONE")
    assert declared["defineRelation"]["relation"] == {
        "edgeType": "database", "cardinality": "ONE", "definedBy": "agent-1"
    }  # fmt: skip
    await _say(acme, "doc:old", "db:mysql", "2024-01-01T00:00:00Z")
    await _say(acme, "doc:new", "db:postgres", "2025-06-01T00:00:00Z")
    now = await _current(acme)
    assert [(e["to"]["key"], e["validTo"]) for e in now] == [("db:postgres", None)]
    assert now[0]["validFrom"] == "2025-06-01T00:00:00+00:00"
    before = await _current(acme, "2024-07-01T00:00:00Z")
    assert [e["to"]["key"] for e in before] == ["db:mysql"]
    assert await _current(acme, "2023-01-01T00:00:00Z") == []
    history = await acme(HISTORY, **{"from": "service:billing", "type": "database"})
    assert history["edgeHistory"] == [
        {"to": "db:mysql", "validFrom": "2024-01-01T00:00:00+00:00",
         "validTo": "2025-06-01T00:00:00+00:00", "endedReason": "SUPERSEDED",
         "endedBy": "doc:new"},
        {"to": "db:postgres", "validFrom": "2025-06-01T00:00:00+00:00", "validTo": None,
         "endedReason": None, "endedBy": None},
    ]  # fmt: skip


async def test_a_backfill_lands_already_ended_and_a_purge_reopens(acme: Api) -> None:
    await acme(DEFINE, type="database", cardinality="ONE")
    await _say(acme, "doc:new", "db:postgres", "2025-06-01T00:00:00Z")
    # Arrives later, but the source says it was true earlier: history, not the present.
    await _say(acme, "doc:old", "db:mysql", "2024-01-01T00:00:00Z")
    assert [e["to"]["key"] for e in await _current(acme)] == ["db:postgres"]
    assert (await acme(PURGE, urn="doc:new"))["purgeSource"]["__typename"] == "PurgeSuccess"
    assert [(e["to"]["key"], e["validTo"]) for e in await _current(acme)] == [("db:mysql", None)]


async def test_declaring_one_keeps_the_newest_target_and_says_how_many_ended(acme: Api) -> None:
    await _say(acme, "doc:a", "db:mysql", "2024-01-01T00:00:00Z")
    await _say(acme, "doc:b", "db:oracle", "2024-03-01T00:00:00Z")
    await _say(acme, "doc:c", "db:postgres", "2025-06-01T00:00:00Z")
    assert len(await _current(acme)) == 3  # MANY until declared
    declared = await acme(DEFINE, type="database", cardinality="ONE")
    assert declared["defineRelation"]["edgesEnded"] == 2
    assert [e["to"]["key"] for e in await _current(acme)] == ["db:postgres"]
    again = await acme(DEFINE, type="database", cardinality="MANY")
    assert again["defineRelation"]["edgesEnded"] == 0
    assert len(await _current(acme)) == 3


async def test_a_retracted_edge_ends_now_and_stays_in_history(
    acme: Api, pool: asyncpg.Pool
) -> None:
    await _say(acme, "doc:a", "db:mysql", None)
    result = await acme(RETRACT, **{"from": "service:billing", "type": "database",
                                    "to": "db:mysql"})  # fmt: skip
    assert result["retractEdge"] == {"__typename": "RetractEdgeSuccess", "retracted": True}
    assert await _current(acme) == []
    [interval] = (await acme(HISTORY, **{"from": "service:billing", "type": "database",
                                         "to": "db:mysql"}))["edgeHistory"]  # fmt: skip
    assert (interval["endedReason"], interval["endedBy"]) == ("RETRACTED", "agent-1")
    # The chunk whose only edge ended is marked superseded, and the evidence is kept.
    marked = await pool.fetchval("SELECT count(*) FROM chunk_marks")
    assert marked == 1
    again = await acme(RETRACT, **{"from": "service:billing", "type": "database",
                                   "to": "db:mysql"})  # fmt: skip
    assert again["retractEdge"]["retracted"] is False


@pytest.mark.parametrize(
    "at", ["1899-12-31T23:59:59Z", "2999-01-01T00:00:00Z", "2024-01-01T00:00:00"]
)
async def test_an_observed_time_out_of_range_is_refused_naming_the_field(
    acme: Api, at: str
) -> None:
    data = await acme(INGEST, urn="doc:x", content="a|rel|b", at=at)
    assert data["ingest"]["__typename"] == "ValidationError"
    assert data["ingest"]["field"] == "observedAt"


async def test_another_client_never_sees_the_history(acme: Api, api: Api) -> None:
    await acme(DEFINE, type="database", cardinality="ONE")
    await _say(acme, "doc:old", "db:mysql", "2024-01-01T00:00:00Z")
    await _say(acme, "doc:new", "db:postgres", "2025-06-01T00:00:00Z")
    globex = api.as_(Principal(key_id="g", scope=Scope("globex"), role=Role.AGENT))
    found = await globex(HISTORY, **{"from": "service:billing", "type": "database"})
    assert found["edgeHistory"] == []
    assert (await globex("{ relations { edgeType } }"))["relations"] == []
    retract = await globex(RETRACT, **{"from": "service:billing", "type": "database",
                                       "to": "db:postgres"})  # fmt: skip
    assert retract["retractEdge"]["retracted"] is False
    assert [e["to"]["key"] for e in await _current(acme)] == ["db:postgres"]


CONTEXT = """
query($history: Boolean!, $asOf: DateTime) {
  agentContext(query: "billing service database", entityKeys: ["service:billing"],
               includeHistory: $history, asOf: $asOf) {
    ... on AgentContext { text sections { infoType lines { text } } }
  }
}"""


def _lines(context: dict[str, Any]) -> dict[str, list[str]]:
    return {s["infoType"]: [line["text"] for line in s["lines"]] for s in context["sections"]}


async def test_agent_context_states_only_what_holds_and_lists_the_past_when_asked(
    acme: Api,
) -> None:
    await acme(DEFINE, type="database", cardinality="ONE")
    await _say(acme, "doc:old", "db:mysql", "2024-01-01T00:00:00Z")
    await _say(acme, "doc:new", "db:postgres", "2025-06-01T00:00:00Z")
    plain = (await acme(CONTEXT, history=False, asOf=None))["agentContext"]
    assert "mysql" not in plain["text"]
    assert "Service:billing DATABASE → Db:postgres" in plain["text"]
    sections = _lines((await acme(CONTEXT, history=True, asOf=None))["agentContext"])
    assert all("mysql" not in line for name, lines in sections.items() if name != "history"
               for line in lines)  # fmt: skip
    history = sections["history"]
    assert history[0].startswith(
        "service:billing database db:mysql (valid 2024-01-01T00:00:00+00:00 to "
        "2025-06-01T00:00:00+00:00, SUPERSEDED by doc:new)"
    )
    assert any("db:mysql" in line and "(superseded " in line for line in history[1:])
    then = (await acme(CONTEXT, history=False, asOf="2024-07-01T00:00:00Z"))["agentContext"]
    assert "Service:billing DATABASE → Db:mysql" in then["text"]
    assert "postgres" not in then["text"]


SUPERSEDING = """
mutation($urn: String!, $content: String!, $old: [String!]) {
  ingest(input: {sourceUrn: $urn, kind: "policy", content: $content, supersedes: $old}) {
    __typename ... on Error { code field message }
  }
}"""
CHUNKS = """query { search(query: "policy laptops", mode: KEYWORD, limit: 10) {
  ... on SearchSuccess { hits { chunk { sourceUrn supersededAt supersededBy } } } } }"""


async def test_a_new_version_under_a_new_urn_supersedes_the_old_one(acme: Api, api: Api) -> None:
    old = "Policy laptops v1.\n\npolicy:laptops|requires|control:disk-encryption\n" \
          "policy:laptops|requires|control:screen-lock"  # fmt: skip
    new = "Policy laptops v2.\n\npolicy:laptops|requires|control:disk-encryption\n" \
          "policy:laptops|requires|control:mdm"  # fmt: skip
    for urn, content, named in (("policy:v1", old, None), ("policy:v2", new, ["policy:v1"])):
        data = await acme(SUPERSEDING, urn=urn, content=content, old=named)
        assert data["ingest"]["__typename"] == "IngestSuccess", data
    edges = (await acme(EDGES, key="policy:laptops"))["node"]
    current = sorted(e["to"]["key"] for e in edges["edges"] if e["validTo"] is None)
    # Restated by v2: disk encryption holds; only v1 said screen lock: it ended.
    assert current == ["control:disk-encryption", "control:mdm"]
    [ended] = (await acme(HISTORY, **{"from": "policy:laptops", "type": "requires",
                                      "to": "control:screen-lock"}))["edgeHistory"]  # fmt: skip
    assert (ended["endedReason"], ended["endedBy"]) == ("SUPERSEDED", "policy:v2")
    hits = (await acme(CHUNKS))["search"]["hits"]
    assert [(h["chunk"]["sourceUrn"], h["chunk"]["supersededBy"]) for h in hits] == [
        ("policy:v2", None),
        ("policy:v1", "policy:v2"),
    ]  # current first, and the old one says what replaced it
    # Purging v2 takes it all back: v1 holds again.
    await acme(PURGE, urn="policy:v2")
    edges = (await acme(EDGES, key="policy:laptops"))["node"]["edges"]
    assert sorted(e["to"]["key"] for e in edges) == ["control:disk-encryption",
                                                    "control:screen-lock"]  # fmt: skip
    hits = (await acme(CHUNKS))["search"]["hits"]
    assert [(h["chunk"]["sourceUrn"], h["chunk"]["supersededAt"]) for h in hits] == [
        ("policy:v1", None)
    ]


async def test_superseding_what_is_not_at_the_scope_is_a_scope_error(acme: Api, api: Api) -> None:
    globex = api.as_(Principal(key_id="g", scope=Scope("globex"), role=Role.AGENT))
    await globex(SUPERSEDING, urn="policy:theirs", content="theirs a|rel|b", old=None)
    for named in (["policy:theirs"], ["policy:nowhere"]):
        data = await acme(SUPERSEDING, urn="policy:mine", content="mine a|rel|b", old=named)
        assert data["ingest"]["__typename"] == "ScopeError", data
        assert "is not a source at this scope" in data["ingest"]["message"]
    mine = await acme(SUPERSEDING, urn="policy:mine", content="mine", old=["policy:mine"])
    assert mine["ingest"]["field"] == "supersedes"
    assert (await acme(CHUNKS))["search"]["hits"] == []  # nothing half-written

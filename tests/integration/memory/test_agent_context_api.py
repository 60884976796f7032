"""agentContext over GraphQL on the real stack: every layer in its section, one embedding per
read, the budget, and nothing of one client ever in another client's context."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

ACME_WEB = Principal("acme-web", Scope("acme", "web"), Role.AGENT)
BETA_WEB = Principal("beta-web", Scope("beta", "web"), Role.AGENT)
BETA = Principal("beta", Scope("beta"), Role.AGENT)
QUERY = "fix the login bug"

CONTEXT = """query C($q: String!, $user: String, $entities: [String!], $budget: Int,
                     $limit: Int! = 10) {
  agentContext(query: $q, userKey: $user, entityKeys: $entities, budget: $budget,
               limit: $limit) {
    __typename
    ... on AgentContext {
      text entity { key } sections { infoType omitted text lines { text block } } }
    ... on Error { code field } } }"""
RULE = """mutation($key: String!, $content: String!) {
  storeRule(ruleKey: $key, ruleType: SECURITY, content: $content) { __typename } }"""
KNOW = """mutation($subject: String!, $content: String!) {
  storeKnowledge(subject: $subject, content: $content, category: PREFERENCE) { __typename } }"""
SESSION = """mutation($summary: String!) {
  appendSessionEntry(source: CHAT, summary: $summary) { __typename } }"""
PROCEDURE = (
    """mutation($input: SaveProcedureInput!) { saveProcedure(input: $input) { __typename } }"""
)
GRAPH = """mutation($input: IngestGraphInput!) {
  ingestGraph(input: $input) {
    __typename ... on IngestGraphSuccess { status rejected { item } } } }"""


async def _remember(api: Api, client: str) -> None:
    """One item of every layer for ``client``, each naming the client."""
    name = client.capitalize()
    calls: list[tuple[str, dict[str, Any]]] = [
        (RULE, {"key": f"{client}-deploy", "content": f"{name}: never deploy on Friday."}),
        (KNOW, {"subject": "Answers", "content": f"{name} wants short answers."}),
        (SESSION, {"summary": f"{name} looked at the login bug."}),
        (PROCEDURE, {"input": {"triggerPattern": QUERY, "description": f"{name}'s login fix.",
                               "steps": [{"agent": "coder", "action": "run_tests"}]}}),
        (GRAPH, {"input": {
            "sourceUrn": f"kb:{client}",
            "metadata": {
                "user:john": {"type": "user",
                              "properties": {"team": f"{name} auth", "name": "John"}},
                "service:auth": {"properties": {"owner": name}},
            },
            "pieces": [
                {"ref": "p1", "content": f"{name}: run the login tests before a fix.",
                 "infoType": "instructions"},
                {"ref": "p2", "content": f"{name}: the login bug lives in the token check.",
                 "infoType": "context"},
                {"ref": "p3", "content": f"{name} knows the login token code.",
                 "infoType": "skills"},
            ],
            "edges": [
                {"from": "user:john", "edgeType": "OWNS", "to": "service:auth",
                 "evidence": ["p2"]},
                {"from": "service:auth", "edgeType": "USES", "to": "lib:jwt",
                 "evidence": ["p3"]},
            ],
            "nodes": [{"key": "lib:jwt"}],
        }}),
    ]  # fmt: skip
    # Procedures serve the whole client: its client-wide key writes them.
    owner = api.as_(Principal(f"{client}-owner", Scope(client), Role.AGENT))
    for document, variables in calls:
        done = await (owner if document == PROCEDURE else api)(document, **variables)
        assert next(iter(done.values()))["__typename"] not in {"ValidationError", "ScopeError"}


async def _context(api: Api, **variables: Any) -> dict[str, Any]:
    found: dict[str, Any] = (await api(CONTEXT, q=QUERY, **variables))["agentContext"]
    return found


def _sections(found: dict[str, Any]) -> dict[str, list[str]]:
    return {s["infoType"]: [line["text"] for line in s["lines"]] for s in found["sections"]}


async def test_every_layer_lands_in_its_section_in_order(
    api: Api, embedder: CountingEmbedder
) -> None:
    acme = api.as_(ACME_WEB)
    await _remember(acme, "acme")
    calls = embedder.calls
    found = await _context(acme, user="User:John", entities=["service:auth"])
    assert embedder.calls == calls + 1  # search and procedures share one embedding
    assert found["__typename"] == "AgentContext" and found["entity"] == {"key": "user:john"}
    sections = _sections(found)
    assert list(sections) == [
        "rules", "user_profile", "instructions", "context", "skills", "session", "procedures",
    ]  # fmt: skip
    assert sections["rules"] == ["acme-deploy (SECURITY): Acme: never deploy on Friday."]
    assert sections["user_profile"] == [
        "name: John",
        "team: Acme auth",
        "[preference] Answers: Acme wants short answers.",
    ]
    assert sections["instructions"] == ["Acme: run the login tests before a fix."]
    # The user's edge links a context piece: it goes to context (003's routing table).
    assert sections["context"] == [
        "service:auth (service): owner=Acme",
        "Acme: the login bug lives in the token check.",
        "OWNS → Service:auth",
    ]
    assert sections["skills"] == ["Acme knows the login token code.", "Service:auth USES → Lib:jwt"]
    assert sections["session"][0].endswith("CHAT: Acme looked at the login bug.")
    assert sections["procedures"] == [
        f"{QUERY} (LEARNED): Acme's login fix. | steps: coder.run_tests"
    ]
    again = await _context(acme, user="user:john", entities=["service:auth"])
    assert again["text"] == found["text"]
    assert found["text"] == "\n\n".join(section["text"] for section in found["sections"])
    blocks = [
        line for line in found["text"].splitlines() if line.startswith("[") and line.endswith("]")
    ]
    assert blocks == [
        "[Metadata]",
        "[Knowledge]",
        "[Knowledge]",
        "[Metadata]",
        "[Knowledge]",
        "[Relationships]",
        "[Knowledge]",
        "[Relationships]",
    ]


async def test_the_budget_cuts_each_section_but_never_the_rules(api: Api) -> None:
    acme = api.as_(ACME_WEB)
    await _remember(acme, "acme")
    whole = _sections(await _context(acme, user="user:john"))
    found = await _context(acme, user="user:john", budget=100)
    cut = {s["infoType"]: s for s in found["sections"]}
    assert cut["rules"]["omitted"] == 0
    profile = cut["user_profile"]
    assert profile["omitted"] > 0
    assert [line["text"] for line in profile["lines"]] == whole["user_profile"][
        : len(profile["lines"])
    ]
    block = next(b for b in found["text"].split("\n\n") if b.startswith("## user_profile"))
    assert len(block) <= 100 and "lower-ranked item" in block


async def test_bad_arguments_are_union_members(api: Api) -> None:
    acme = api.as_(ACME_WEB)
    assert await _context(acme, budget=10) == {
        "__typename": "ValidationError", "code": "INVALID", "field": "budget"
    }  # fmt: skip
    many = [f"service:s{i}" for i in range(21)]
    assert (await _context(acme, entities=many))["field"] == "entityKeys"
    assert (await _context(acme, user="no key"))["field"] == "userKey"


@pytest.mark.parametrize("reader", [BETA_WEB, BETA], ids=["beta-project", "beta-client-wide"])
async def test_another_client_sees_nothing_of_acmes_context(api: Api, reader: Principal) -> None:
    await _remember(api.as_(ACME_WEB), "acme")
    beta = api.as_(reader)
    found = await _context(beta, user="user:john", entities=["service:auth", "lib:jwt"])
    assert found["__typename"] == "AgentContext"
    assert found["entity"] is None and found["sections"] == [] and found["text"] == ""
    # Beta's own memory shows, and still nothing of Acme's.
    await _remember(beta, "beta")
    own = await _context(beta, user="user:john", entities=["service:auth"])
    assert "Beta" in own["text"] and "Acme" not in own["text"] and "acme" not in own["text"]

"""`search` and `chunksByKind` through GraphQL: modes, filters, minScore, validation."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest

from kenning.graphql.context import Context
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api
from tests.support.ingest_documents import ingest_all

pytestmark = pytest.mark.integration

ACME = {"clientId": "acme"}
DOCS: list[dict[str, Any]] = [
    {
        "sourceUrn": "jira:PAY-1", "kind": "jira_issue", "knowledgeType": "FACT",
        "tags": ["auth", "backend"],
        "content": "The retry loop drops pending invoices under load after a deploy.",
    },
    {
        "sourceUrn": "wiki:retry", "kind": "wiki_page", "knowledgeType": "PROCEDURE",
        "tags": ["backend"],
        "content": "To restart the retry loop, drain the queue first, then redeploy the worker.",
    },
    {
        "sourceUrn": "slack:1", "kind": "chat", "knowledgeType": "NOTE",
        "content": "Lunch is at noon on Fridays in the big meeting room.",
    },
    {
        "sourceUrn": "pref:1", "kind": "user_knowledge_preference",
        "knowledgeType": "PREFERENCE", "content": "Prefers concise answers with code samples.",
    },
]  # fmt: skip
ALL = {doc["sourceUrn"] for doc in DOCS}

SEARCH = """
query($q: String!, $mode: SearchMode!, $limit: Int! = 10, $minScore: Float,
      $kinds: [String!], $knowledgeTypes: [KnowledgeType!], $tags: [String!],
      $sourceUrns: [String!], $scope: ScopeInput) {
  search(query: $q, mode: $mode, limit: $limit, minScore: $minScore, kinds: $kinds,
         knowledgeTypes: $knowledgeTypes, tags: $tags, sourceUrns: $sourceUrns, scope: $scope) {
    __typename
    ... on SearchSuccess {
      hits { score vectorRank keywordRank sourceUrn kind graphRefs
             chunk { id sourceUrn content kind tags knowledgeType } }
    }
    ... on ValidationError { code message field }
    ... on ScopeError { code message }
  }
}"""

CHUNKS_BY_KIND = """
query($kind: String!, $limit: Int! = 20, $scope: ScopeInput) {
  chunksByKind(kind: $kind, limit: $limit, scope: $scope) {
    sourceUrn content kind scope { clientId }
  }
}"""


@pytest.fixture
async def seeded(api: Api) -> Api:
    await ingest_all(api, [{**doc, "scope": ACME} for doc in DOCS])
    return api


async def hits(api: Api, q: str, mode: str, **args: Any) -> list[dict[str, Any]]:
    result = (await api(SEARCH, q=q, mode=mode, scope=args.pop("scope", ACME), **args))["search"]
    assert result["__typename"] == "SearchSuccess", result
    found: list[dict[str, Any]] = result["hits"]
    return found


async def test_keyword_mode_finds_the_chunks_holding_the_words(seeded: Api) -> None:
    found = await hits(seeded, "retry loops", "KEYWORD")
    assert {h["sourceUrn"] for h in found} == {"jira:PAY-1", "wiki:retry"}
    assert sorted(h["keywordRank"] for h in found) == [1, 2]
    assert all(h["vectorRank"] is None and 0 < h["score"] < 1 for h in found)


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("retry budget", ["jira:PAY-1", "wiki:retry"]),  # any term matches
        ("retry loop -invoices", ["wiki:retry"]),  # an excluded term excludes
        ('"loop drops"', ["jira:PAY-1"]),  # a quoted phrase stays a phrase
        ('"drops loop"', []),
        ("noon meeting or invoices", ["jira:PAY-1", "slack:1"]),
        ("the of and", []),  # only stop words: nothing, not an error
    ],
)
async def test_keyword_query_syntax(seeded: Api, q: str, expected: list[str]) -> None:
    found = await hits(seeded, q, "KEYWORD")
    assert sorted(h["sourceUrn"] for h in found) == expected


async def test_keyword_ranks_chunks_holding_more_of_the_terms_higher(seeded: Api) -> None:
    found = await hits(seeded, "restart the retry loop worker", "KEYWORD")
    assert [h["sourceUrn"] for h in found] == ["wiki:retry", "jira:PAY-1"]
    assert found[0]["score"] > found[1]["score"]


async def test_vector_mode_ranks_the_identical_text_first(seeded: Api) -> None:
    found = await hits(seeded, DOCS[2]["content"], "VECTOR")
    assert found[0]["sourceUrn"] == "slack:1"
    assert found[0]["score"] == pytest.approx(1.0, abs=1e-5)
    assert [h["vectorRank"] for h in found] == list(range(1, len(found) + 1))
    assert {h["sourceUrn"] for h in found} == ALL
    assert all(h["keywordRank"] is None for h in found)


async def test_hybrid_puts_first_what_both_indexes_rank_first(seeded: Api) -> None:
    found = await hits(seeded, DOCS[0]["content"], "HYBRID")
    top = found[0]
    assert (top["sourceUrn"], top["vectorRank"], top["keywordRank"]) == ("jira:PAY-1", 1, 1)
    # Score fusion: the mean of its cosine similarity (1.0, the same text) and its BM25 score.
    keyword = await hits(seeded, DOCS[0]["content"], "KEYWORD")
    assert top["score"] == pytest.approx((1.0 + keyword[0]["score"]) / 2, abs=1e-5)
    assert top["kind"] == top["chunk"]["kind"] == "jira_issue"
    assert top["chunk"]["content"] == DOCS[0]["content"]
    ranks = {h["sourceUrn"]: h["keywordRank"] for h in found}
    assert ranks == {"jira:PAY-1": 1, "wiki:retry": 2, "slack:1": None, "pref:1": None}
    assert [h["score"] for h in found] == sorted((h["score"] for h in found), reverse=True)


async def test_hybrid_returns_keyword_only_matches_when_vectors_miss(seeded: Api) -> None:
    found = await hits(seeded, "drain queue", "HYBRID", limit=4)
    [wiki] = [h for h in found if h["sourceUrn"] == "wiki:retry"]
    assert wiki["keywordRank"] == 1
    assert found[0] is wiki


@pytest.mark.parametrize("mode", ["KEYWORD", "VECTOR", "HYBRID"])
@pytest.mark.parametrize(
    ("filters", "vector_set", "keyword_set"),
    [
        ({"kinds": ["wiki_page"]}, {"wiki:retry"}, {"wiki:retry"}),
        ({"tags": ["auth"]}, {"jira:PAY-1"}, {"jira:PAY-1"}),
        ({"knowledgeTypes": ["PROCEDURE", "NOTE"]}, {"wiki:retry", "slack:1"}, {"wiki:retry"}),
        ({"sourceUrns": ["jira:PAY-1", "slack:1"]}, {"jira:PAY-1", "slack:1"}, {"jira:PAY-1"}),
        ({"tags": ["backend"], "kinds": ["jira_issue", "chat"]}, {"jira:PAY-1"}, {"jira:PAY-1"}),
        ({"kinds": ["nothing"]}, set(), set()),
    ],
)
async def test_filters_narrow_every_mode(
    seeded: Api,
    mode: str,
    filters: dict[str, list[str]],
    vector_set: set[str],
    keyword_set: set[str],
) -> None:
    found = await hits(seeded, "retry loop", mode, **filters)
    expected = keyword_set if mode == "KEYWORD" else vector_set
    assert {h["sourceUrn"] for h in found} == expected


async def test_filter_values_are_data_not_sql(seeded: Api, pool: asyncpg.Pool) -> None:
    hostile = "x'); DROP TABLE chunks; --"
    for mode in ("KEYWORD", "VECTOR", "HYBRID"):
        assert await hits(seeded, hostile, mode, kinds=[hostile], tags=[hostile]) == []
    assert await pool.fetchval("SELECT count(*) FROM chunks") == len(DOCS)


async def test_min_score_drops_weaker_hits(seeded: Api) -> None:
    query = DOCS[3]["content"]
    assert len(await hits(seeded, query, "VECTOR")) == 4
    strict = await hits(seeded, query, "VECTOR", minScore=0.99)
    assert [h["sourceUrn"] for h in strict] == ["pref:1"]
    assert await hits(seeded, "retry loop", "KEYWORD", minScore=0.99) == []
    best = (await hits(seeded, DOCS[0]["content"], "HYBRID"))[0]["score"]
    hybrid = await hits(seeded, DOCS[0]["content"], "HYBRID", minScore=best)
    assert [h["sourceUrn"] for h in hybrid] == ["jira:PAY-1"]


async def test_limit_caps_the_hits(seeded: Api) -> None:
    assert len(await hits(seeded, "retry loop", "VECTOR", limit=2)) == 2
    assert len(await hits(seeded, "retry loop", "HYBRID", limit=1)) == 1


@pytest.mark.parametrize(
    ("q", "limit", "field"),
    [("", 10, "query"), ("  ", 10, "query"), ("retry", 0, "limit"), ("retry", 101, "limit")],
)
async def test_bad_arguments_are_validation_errors(
    seeded: Api, embedder: CountingEmbedder, q: str, limit: int, field: str
) -> None:
    calls = embedder.calls
    result = (await seeded(SEARCH, q=q, mode="HYBRID", limit=limit, scope=ACME))["search"]
    assert result["__typename"] == "ValidationError"
    assert (result["code"], result["field"]) == ("INVALID", field)
    assert embedder.calls == calls


async def test_embedding_happens_only_where_vectors_are_used(
    seeded: Api, embedder: CountingEmbedder
) -> None:
    calls = embedder.calls
    await hits(seeded, "retry loop", "KEYWORD")
    assert embedder.calls == calls
    await hits(seeded, "retry loop", "VECTOR")
    await hits(seeded, "retry loop", "HYBRID")
    assert embedder.calls == calls + 2


async def test_chunks_by_kind_lists_visible_chunks_without_embedding(
    seeded: Api, embedder: CountingEmbedder
) -> None:
    await ingest_all(
        seeded,
        [
            {"sourceUrn": "pref:2", "kind": "user_knowledge_preference", "scope": ACME,
             "content": "Prefers dark mode in every editor."},
            {"sourceUrn": "pref:globex", "kind": "user_knowledge_preference",
             "scope": {"clientId": "globex"}, "content": "Prefers light mode."},
        ],
    )  # fmt: skip
    calls = embedder.calls
    data = await seeded(CHUNKS_BY_KIND, kind="user_knowledge_preference", scope=ACME)
    assert [c["sourceUrn"] for c in data["chunksByKind"]] == ["pref:2", "pref:1"]  # newest first
    assert {c["scope"]["clientId"] for c in data["chunksByKind"]} == {"acme"}
    limited = await seeded(CHUNKS_BY_KIND, kind="user_knowledge_preference", limit=1, scope=ACME)
    assert len(limited["chunksByKind"]) == 1
    assert (await seeded(CHUNKS_BY_KIND, kind="no_such_kind", scope=ACME))["chunksByKind"] == []
    assert embedder.calls == calls


async def test_chunks_by_kind_refuses_a_limit_out_of_range(seeded: Api) -> None:
    result = await seeded.schema.execute(
        '{ chunksByKind(kind: "chat", limit: 0) { id } }',
        context_value=Context(runtime=seeded.runtime, principal=seeded.principal),
    )
    assert result.errors is not None
    assert "limit must be between 1 and 100" in result.errors[0].message

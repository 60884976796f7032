"""Real reads (graph, search, findNodes, errors) give the same result with plain fields
completed directly as through graphql-core's own completion."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.domain.access.scope import Scope
from kenning.graphql.execution.executor import KenningExecutor
from kenning.schema.build import build_schema
from tests.support.graph_data import write_graph
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

ACME = Scope("acme")


class _GraphqlCoreFields(KenningExecutor):
    """The same executor with every field through graphql-core's completion: its
    planned-fields hook off."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.planned_fields = None


NODE = "key type properties scope { clientId projectId groupId } __typename"
QUERIES: list[tuple[str, dict[str, Any]]] = [
    (
        "query($k: String!, $s: Boolean!) { neighbors(key: $k, depth: 2) { truncated"
        f" nodes {{ {NODE} }} edges {{ t: edgeType confidence evidenceCount fromKey"
        " from { key degree @skip(if: $s) } to { ...N } scope @include(if: $s) { clientId } } } }"
        " fragment N on Node { key type }",
        {"k": "n:a", "s": True},
    ),
    ("query($k: String!) { neighbors(key: $k, depth: 9) { truncated } }", {"k": "n:a"}),
    (
        "query($k: String!) { node(key: $k) { key edges { edgeType from { key type }"
        " to { key properties } evidence { sourceUrn } } chunks { sourceUrn } } }",
        {"k": "n:b"},
    ),
    (
        "query($ks: [String!]!) { nodes(keys: $ks) { key degree } }",
        {"ks": ["n:a", "n:none", "n:c"]},
    ),
    (
        'query { path(from: "n:a", to: "n:d") { length nodes { key } edges { from { key }'
        " to { key } } } }",
        {},
    ),
    (
        'query { findNodes(query: "n:b") { __typename ... on FoundNodes { matches { key type'
        " score node { key } } } } }",
        {},
    ),
    (
        'query { search(query: "Evidence that", limit: 5) { __typename ... on SearchSuccess'
        " { hits { chunk { sourceUrn content scope { clientId } } } } } }",
        {},
    ),
    (
        'query { agentContext(query: "Evidence", entityKey: "n:b", limit: 5) { __typename'
        " ... on AgentContext { text entity { key type } sections { infoType lines { text"
        " chunkIds } } } ... on ValidationError { field } } }",
        {},
    ),
    (
        "query { jobs(first: 5, orderBy: NEWEST) { nodes { id status stage lane priority"
        " position attempts lastError sourceUrn } endCursor hasNextPage } }",
        {},
    ),
    ('query { neighbors(key: "not a key!!") { truncated } }', {}),
]


async def test_real_reads_match_graphql_core(api: Api) -> None:
    await write_graph(
        api,
        ACME,
        [("n:a", "next", "n:b"), ("n:b", "next", "n:c"), ("n:c", "next", "n:d")],
        nodes={"n:a": {"title": "A", "rank": 1}},
    )
    reference = Api(api.runtime, api.principal)
    reference.schema = build_schema()
    reference.schema.execution_context_class = _GraphqlCoreFields
    answered = 0
    for query, variables in QUERIES:
        fast = await api.execute(query, **variables)
        slow = await reference.execute(query, **variables)
        assert fast.data == slow.data, query
        assert [(e.message, e.path) for e in fast.errors or ()] == [
            (e.message, e.path) for e in slow.errors or ()
        ], query
        answered += fast.data is not None and not fast.errors
    assert answered >= 8  # the comparison covers real data, not only failures

"""The graph's past in the leak audit: corrections written over a random corpus, and the read
paths that show them, ``nodeHistory`` and ``changes``.

A correction is an ``updateNode`` of a stored vertex (a property naming its scope's tag is
set, the tagged ``secret_`` one removed) or a ``retractEdge`` of a stored edge with a reason
carrying the edge scope's tag, each at exactly the vertex's or edge's scope. Every version
and change therefore carries the tag of the scope it belongs to, so the generic tag scan
holds for both paths; the checks here make them exact against the rows read straight from
``node_property_versions`` and ``changes``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg
from hypothesis import strategies as st

from kenning.domain.access.scope import Scope
from tests.support.graph_data import scope_input
from tests.support.graphql_api import Api
from tests.support.leaks.corpus import tag

Pick = tuple[int, bool]  # (which vertex or edge, retract an edge instead of a correction)
HISTORY_PAGE = 50
GRAPH_KINDS = frozenset({"NODE", "EDGE"})
_UPDATE = """mutation($key: String!, $set: JSON, $unset: [String!], $scope: ScopeInput) {
  updateNode(key: $key, set: $set, unset: $unset, scope: $scope) { __typename } }"""
_RETRACT = """mutation($from: String!, $type: String!, $to: String!, $scope: ScopeInput,
  $reason: String) {
  retractEdge(from: $from, edgeType: $type, to: $to, scope: $scope, reason: $reason) {
    __typename ... on RetractEdgeSuccess { retracted } } }"""


@dataclass(frozen=True, slots=True)
class StoredVersion:
    """One row of ``node_property_versions``."""

    key: str
    name: str
    value: str  # its JSON, keys sorted
    scope: Scope
    current: bool


@dataclass(frozen=True, slots=True)
class StoredChange:
    """One row of ``changes`` about the graph."""

    kind: str
    item_id: str
    scope: Scope


def corrections() -> st.SearchStrategy[tuple[Pick, ...]]:
    """Up to three corrections, each picking among what the corpus stored."""
    return st.lists(st.tuples(st.integers(0, 99), st.booleans()), max_size=3).map(tuple)


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def _row_scope(row: asyncpg.Record) -> Scope:
    return Scope(row["client_id"], row["project_id"], row["group_id"])


History = tuple[tuple[StoredVersion, ...], tuple[StoredChange, ...]]


async def history_rows(pool: asyncpg.Pool) -> History:
    """Every version and every change of a node or an edge, with no visibility predicate."""
    version_rows = await pool.fetch(
        "SELECT node_key, name, value::text AS value, client_id, project_id, group_id, "
        "ended_at IS NULL AS current FROM node_property_versions"
    )
    change_rows = await pool.fetch(
        "SELECT item_kind, item_id, client_id, project_id, group_id FROM changes "
        "WHERE item_kind IN ('NODE', 'EDGE')"
    )
    versions = tuple(
        StoredVersion(
            r["node_key"], r["name"], _json(json.loads(r["value"])), _row_scope(r), r["current"]
        )
        for r in version_rows
    )
    changes = tuple(StoredChange(r["item_kind"], r["item_id"], _row_scope(r)) for r in change_rows)
    return versions, changes


def _chosen(found: Sequence[Any], entity: str, key: Callable[[Any], str], pick: int) -> Any:
    """The picked one of ``found``, among those of the probe's entity when there are any
    (so the probe's paths show corrections often)."""
    mine = [item for item in found if key(item) == entity] or list(found)
    return mine[pick % len(mine)] if mine else None


async def _retract(api: Api, edge: Any) -> None:
    ends = {"from": edge.from_key, "type": edge.edge_type, "to": edge.to_key}
    reason = f"{tag(edge.scope)} retracted"
    answer = await api(_RETRACT, scope=scope_input(edge.scope), reason=reason, **ends)
    assert answer["retractEdge"]["__typename"] == "RetractEdgeSuccess", answer


async def _correct(api: Api, vertex: Any) -> None:
    marker = tag(vertex.scope).replace("-", "_")
    fixed = {f"fix_{marker}": f"{tag(vertex.scope)} fixed {vertex.key}"}
    unset = [f"secret_{marker}"]
    answer = await api(
        _UPDATE, key=vertex.key, set=fixed, unset=unset, scope=scope_input(vertex.scope)
    )
    assert answer["updateNode"]["__typename"] == "UpdateNodeSuccess", answer


async def write_corrections(
    api: Api, vertices: Sequence[Any], edges: Sequence[Any], picks: Sequence[Pick], entity: str
) -> None:
    """Correct picked vertices and retract picked edges, each at its own scope."""
    by_key = sorted(vertices, key=lambda v: (v.key, v.scope.describe()))
    current = sorted(
        (e for e in edges if e.current),
        key=lambda e: (e.from_key, e.edge_type, e.to_key, e.scope.describe()),
    )
    for pick, retract in picks:
        if retract and current:
            await _retract(api, _chosen(current, entity, lambda e: e.from_key, pick))
        elif by_key:
            await _correct(api, _chosen(by_key, entity, lambda v: v.key, pick))


def fields(entity: str, prefix: str, scope: str) -> list[tuple[str, str]]:
    """The probe's ``nodeHistory`` and every ``changes`` the reader may see."""
    return [
        (
            f"{prefix}nodeHistory",
            f'nodeHistory(key: "{entity}", first: {HISTORY_PAGE}, {scope}) {{ hasNextPage '
            "nodes { __typename key name value source endedAt scope { ...S } } }",
        ),
        (
            f"{prefix}changes",
            f"changes(first: {HISTORY_PAGE}, {scope}) {{ hasNextPage nodes {{ __typename "
            "itemKind itemId itemKey action old new reason scope { ...S } } }",
        ),
    ]


def check(
    answers: dict[str, Any],
    entity: str,
    rows: History,
    sees: Callable[[Scope], bool],
    who: str,
) -> None:
    """Each path answers exactly the rows of scopes the reader sees (graph changes only:
    memory's have their own audit)."""
    versions, changes = rows
    history = answers["nodeHistory"]
    got = {
        (v["key"], v["name"], _json(v["value"]), _scope(v["scope"]), v["endedAt"] is None)
        for v in history["nodes"]
    }
    want = {
        (v.key, v.name, v.value, v.scope, v.current)
        for v in versions
        if v.key == entity and sees(v.scope)
    }
    assert not history["hasNextPage"] and got == want, (who, "nodeHistory", got ^ want)
    page = answers["changes"]
    got_changes = sorted(
        (c["itemKind"], c["itemId"], _scope(c["scope"]).describe())
        for c in page["nodes"]
        if c["itemKind"] in GRAPH_KINDS
    )
    want_changes = sorted((c.kind, c.item_id, c.scope.describe()) for c in changes if sees(c.scope))
    if page["hasNextPage"]:
        assert set(got_changes) <= set(want_changes), (who, "changes", got_changes)
    else:
        assert got_changes == want_changes, (who, "changes", got_changes, want_changes)


def _scope(value: dict[str, str]) -> Scope:
    return Scope(value["clientId"], value["projectId"], value["groupId"])

"""Every read path as one GraphQL field, so a reader's whole view fits in one request.

A *block* is the list of root fields (search in each mode and twice filtered, chunksByKind
for each kind, chunks and chunk by id, nodes, node, findNodes by key and by a misspelling,
neighbors, path, evidencePack, agentContext, edgeHistory per edge type, relations,
nodeHistory, changes, checkIns, allNodes, sources, storedFiles), aliased with a
prefix and read with one scope variable. Two blocks with different scopes can share a
request, which also checks that the per-request loaders keep reader scopes apart.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from strawberry.types import ExecutionResult

from kenning.domain.access.principal import Principal
from kenning.graphql.context import Context
from tests.support.graphql_api import Api
from tests.support.leaks import graph_history
from tests.support.leaks.corpus import EDGE_TYPES, GRAPH_KIND, KEYS, KINDS, TEXT_KINDS, WORD

MISSING_KEY = "user:nobody"
MISSING_CHUNK = "no-such-chunk"
MODES = ("HYBRID", "VECTOR", "KEYWORD")
UNION_FIELDS = ("search", "evidencePack", "agentContext", "checkIns", "findNodes")
# findNodes probes: a misspelling of one key's id part, and the probe's exact key.
FIND_TYPO = ("svc:billing", "biling")
# A filtered search: URNs are shared by many scopes, so the filter must not replace the scope.
FILTER_KINDS = (TEXT_KINDS[0], GRAPH_KIND)
FILTER_URNS = ("doc-1", "graph-1")
# A search narrowed by node and time (the ``filters`` input): the filters must not replace
# the scope either; every chunk was stored after FILTER_AFTER.
FILTER_ENTITY = "svc:auth"
FILTER_AFTER = "2000-01-01T00:00:00Z"

# Selections shared by every path, each fragment with the fragments it spreads.
FRAGMENTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "S": ("fragment S on ScopeInfo { clientId projectId groupId }", ()),
    "C": (
        "fragment C on Chunk { __typename id sourceUrn kind content tags graphRefs infoType "
        "metadata scope { ...S } }",
        ("S",),
    ),
    "V": ("fragment V on Node { __typename key type properties scope { ...S } }", ("S",)),
    "E": (
        "fragment E on Edge { __typename edgeType evidenceCount confidence scope { ...S } "
        "evidenceKinds properties assertedBy { sourceUrn writer assertedAt } "
        "from { ...V } to { ...V } evidence(limit: 100) { ...C } }",
        ("S", "V", "C"),
    ),
    "N": (
        "fragment N on Node { ...V degree chunks(limit: 100) { ...C } edges(limit: 500) { ...E } }",
        ("V", "C", "E"),
    ),
}


@dataclass(frozen=True, slots=True)
class Probe:
    """Which keys the graph paths start from."""

    neighbors: tuple[tuple[str, int], ...] = ((KEYS[0], 3), (KEYS[2], 1))
    paths: tuple[tuple[str, str], ...] = ((KEYS[0], KEYS[3]), (KEYS[4], KEYS[1]))
    entity: str = KEYS[0]

    @property
    def query(self) -> str:
        return f"{WORD} {self.entity.replace(':', ' ')}"


def block(
    probe: Probe, prefix: str, var: str, chunk_ids: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """``(alias, field text)`` for every read path, scoped by ``$var``; ``chunk_ids`` are
    asked for by id (every stored chunk, whoever's)."""
    s = f"scope: ${var}"
    keys = json.dumps([*KEYS, MISSING_KEY])
    ids = [*chunk_ids, MISSING_CHUNK]
    fields = [
        (
            f"{prefix}search_{mode}",
            f'search(query: "{WORD}", mode: {mode}, limit: 100, {s}) {{ __typename '
            "... on SearchSuccess { hits { sourceUrn kind graphRefs chunk { ...C } } } "
            "... on ScopeError { code message } }",
        )
        for mode in MODES
    ]
    fields.append(
        (
            f"{prefix}search_filtered",
            f'search(query: "{WORD}", limit: 100, kinds: {json.dumps(FILTER_KINDS)}, '
            f"sourceUrns: {json.dumps(FILTER_URNS)}, {s}) {{ __typename "
            "... on SearchSuccess { hits { chunk { ...C } } } ... on ScopeError { code } }",
        )
    )
    narrowed = f'{{entityKeys: ["{FILTER_ENTITY}"], createdAfter: "{FILTER_AFTER}"}}'
    fields.append(
        (
            f"{prefix}search_narrowed",
            f'search(query: "{WORD}", limit: 100, filters: {narrowed}, {s}) {{ __typename '
            "... on SearchSuccess { hits { chunk { ...C } } } ... on ScopeError { code } }",
        )
    )
    fields += [
        (f"{prefix}kind_{kind}", f'chunksByKind(kind: "{kind}", limit: 100, {s}) {{ ...C }}')
        for kind in KINDS
    ]
    fields += [
        (f"{prefix}chunks", f"chunks(ids: {json.dumps(ids)}, {s}) {{ ...C }}"),
        (f"{prefix}chunk", f"chunk(id: {json.dumps(ids[0])}, {s}) {{ ...C }}"),
        (f"{prefix}nodes", f"nodes(keys: {keys}, {s}) {{ ...N }}"),
        (f"{prefix}node", f'node(key: "{probe.entity}", {s}) {{ ...N }}'),
    ]
    fields += [
        (
            f"{prefix}findNodes_{name}",
            f'findNodes(query: "{text}", limit: 100, {s}) {{ __typename '
            "... on FoundNodes { matches { __typename key type label score scope { ...S } "
            "node { ...N } } } ... on ScopeError { code message } }",
        )
        for name, text in (("key", probe.entity), ("typo", FIND_TYPO[1]))
    ]
    fields += [
        (
            f"{prefix}neighbors_{i}",
            f'neighbors(key: "{key}", depth: {depth}, limit: 1000, {s}) '
            "{ truncated nodes { ...N } edges { ...E } }",
        )
        for i, (key, depth) in enumerate(probe.neighbors)
    ]
    fields += [
        (
            f"{prefix}path_{i}",
            f'path(from: "{a}", to: "{b}", maxDepth: 6, {s}) '
            "{ length nodes { ...V } edges { ...E } }",
        )
        for i, (a, b) in enumerate(probe.paths)
    ]
    fields += [
        (
            f"{prefix}evidencePack",
            f'evidencePack(query: "{probe.query}", hops: 3, limit: 50, {s}) {{ __typename '
            "... on EvidencePack { summary seeds relatedNodes items { __typename source "
            "confidence chunkIds content sourceUrn edge { ...E } } } "
            "... on ScopeError { code message } }",
        ),
        (
            f"{prefix}agentContext",
            f'agentContext(query: "{probe.query}", entityKey: "{probe.entity}", limit: 50, '
            f"{s}) {{ __typename ... on AgentContext {{ text entity {{ ...N }} sections {{ "
            "__typename infoType text lines { __typename text chunkIds score } } } "
            "... on ScopeError { code message } }",
        ),
        (
            f"{prefix}agentContext_deep",
            f'agentContext(query: "{probe.query}", userKey: "{probe.entity}", limit: 50, '
            f"depth: 3, textFormat: {{includeScores: true}}, {s}) {{ __typename "
            "... on AgentContext { text sections { infoType lines { text chunkIds score block "
            "tags } } } ... on ScopeError { code } }",
        ),
        (
            f"{prefix}agentContext_history",
            f'agentContext(query: "{probe.query}", entityKeys: ["{probe.entity}"], limit: 50, '
            f"includeHistory: true, {s}) {{ __typename ... on AgentContext {{ text "
            "sections { infoType lines { text chunkIds } } } ... on ScopeError { code } }",
        ),
        *(
            (
                f"{prefix}edgeHistory_{edge_type}",
                f'edgeHistory(from: "{probe.entity}", edgeType: "{edge_type}", {s}) '
                "{ __typename from edgeType to scope { ...S } validFrom validTo endedBy }",
            )
            for edge_type in EDGE_TYPES
        ),
        (f"{prefix}relations", f"relations({s}) {{ __typename edgeType definedBy }}"),
        *graph_history.fields(probe.entity, prefix, s),
        (f"{prefix}allNodes", f"allNodes(first: 200, {s}) {{ hasNextPage nodes {{ ...V }} }}"),
        (
            f"{prefix}sources",
            f"sources(first: 200, {s}) {{ __typename hasNextPage nodes {{ __typename "
            "sourceUrn kind connectionId scope { ...S } storedFile { __typename id scope "
            "{ ...S } } } }",
        ),
        (
            f"{prefix}storedFiles",
            f"storedFiles(first: 200, {s}) {{ __typename hasNextPage nodes {{ __typename "
            "id sourceUrn scope { ...S } } }",
        ),
        (
            f"{prefix}checkIns",
            f"checkIns(first: 100, {s}) {{ __typename ... on CheckInPage {{ hasNextPage "
            "nodes { id caller inputText hints output scope { ...S } } } "
            "... on ScopeError { code message } }",
        ),
    ]
    return fields


def document(fields: Sequence[tuple[str, str]], variables: Sequence[str]) -> str:
    """A query holding ``fields``, declaring each of ``variables`` as a ``ScopeInput``."""
    declared = ", ".join(f"${v}: ScopeInput" for v in variables)
    body = "\n  ".join(f"{alias}: {text}" for alias, text in fields)
    # GraphQL rejects unused fragments: include the ones spread, and theirs.
    wanted = {name for name in FRAGMENTS if f"...{name}" in body}
    while missing := {d for n in wanted for d in FRAGMENTS[n][1]} - wanted:
        wanted |= missing
    fragments = "\n".join(FRAGMENTS[name][0] for name in sorted(wanted))
    return f"query Read({declared}) {{\n  {body}\n}}\n{fragments}"


async def execute(
    api: Api, principal: Principal, query: str, variables: dict[str, Any]
) -> ExecutionResult:
    """Run ``query`` as ``principal``, errors included (``Api`` asserts there are none)."""
    context = Context(runtime=api.runtime, principal=principal)
    return await api.schema.execute(query, variable_values=variables, context_value=context)

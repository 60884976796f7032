"""Checking one reader's responses against what its scope may see.

Two kinds of check. *Leaks*, on every object wherever it appears in a response: each
chunk, node (with its properties), edge and cited chunk id must be visible to the reader,
and no string may carry the tag of a scope it cannot see. *Completeness*, per read path:
the answer is exactly what the reference rule allows (so a leak check cannot pass by
returning nothing).
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

from strawberry.types import ExecutionResult

from kenning.domain.access.scope import Scope
from tests.support.leaks import graph_history
from tests.support.leaks.corpus import EDGE_TYPES, KEYS, KINDS, tags_in
from tests.support.leaks.ground_truth import Stored
from tests.support.leaks.read_paths import (
    FILTER_ENTITY,
    FILTER_KINDS,
    FILTER_URNS,
    FIND_TYPO,
    MISSING_CHUNK,
    MISSING_KEY,
    MODES,
    UNION_FIELDS,
    Probe,
)
from tests.support.leaks.stored_rows import EdgeId

Json = Any
MAX_PATH = 6


def as_scope(value: dict[str, str]) -> Scope:
    """A ``ScopeInfo`` value as a ``Scope``."""
    return Scope(value["clientId"], value["projectId"], value["groupId"])


class Audit:
    """The checks for one reader scope over one stored corpus."""

    def __init__(self, stored: Stored, reader: Scope, who: str) -> None:
        self.stored = stored
        self.reader = reader
        self.visible = stored.seen_by(reader)
        self.edges = {edge.identity: edge for edge in stored.edges}
        self.who = who

    def fail(self, what: str, path: str, value: Json) -> NoReturn:
        raise AssertionError(f"{what} at {path} for {self.who}: {json.dumps(value)[:600]}")

    # Leaks, wherever an object appears.

    def walk(self, value: Json, path: str) -> None:
        """Check every object and string in ``value``."""
        if isinstance(value, dict):
            check = getattr(self, f"_{value.get('__typename', '')}", None)
            if check is not None:
                check(value, path)
            for name, item in value.items():
                self._tags(name, path)
                self.walk(item, f"{path}.{name}")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                self.walk(item, f"{path}[{index}]")
        elif isinstance(value, str):
            self._tags(value, path)

    def _tags(self, text: str, path: str) -> None:
        for scope in tags_in(text):
            if not self.stored.can_see(self.reader, scope):
                self.fail(f"LEAK: text of {scope.describe()}", path, text)

    def _chunk_id(self, chunk_id: str, path: str) -> None:
        stored = self.stored.chunks.get(chunk_id)
        if stored is None:
            self.fail("unknown chunk id", path, chunk_id)
        elif chunk_id not in self.visible.chunks:
            self.fail(f"LEAK: chunk of {stored.scope.describe()}", path, chunk_id)

    def _Chunk(self, chunk: Json, path: str) -> None:
        self._chunk_id(chunk["id"], path)
        stored = self.stored.chunks[chunk["id"]]
        if (as_scope(chunk["scope"]), chunk["content"], chunk["kind"]) != (
            stored.scope,
            stored.content,
            stored.kind,
        ):
            self.fail("chunk differs from the stored row", path, chunk)

    def _Node(self, node: Json, path: str) -> None:
        key = node["key"]
        parts = self.visible.parts(key)
        if not parts:
            self.fail("LEAK: node with no visible vertex", path, node)
        if as_scope(node["scope"]) not in {p.scope for p in parts}:
            self.fail("LEAK: node scope is not a visible vertex's", path, node)
        for name, value in node["properties"].items():
            if not any(p.properties.get(name) == value for p in parts):
                self.fail(f"LEAK: property {name!r} of no visible vertex", path, node)
        touching = self.visible.touching(key)
        if "degree" in node and node["degree"] != len(touching):
            self.fail(f"degree is not {len(touching)}", path, node)
        if "edges" in node and {self.edge_id(e) for e in node["edges"]} != self.visible.edge_ids(
            touching
        ):
            self.fail("node edges are not its visible edges", path, node)
        if "chunks" in node and {c["id"] for c in node["chunks"]} != (
            self.visible.chunks_referencing(key)
        ):
            self.fail("node chunks are not the visible chunks citing it", path, node)

    @staticmethod
    def edge_id(edge: Json) -> EdgeId:
        return (edge["from"]["key"], edge["edgeType"], edge["to"]["key"], as_scope(edge["scope"]))

    def _Edge(self, edge: Json, path: str) -> None:
        identity = self.edge_id(edge)
        stored = self.edges.get(identity)
        if stored is None:
            self.fail("unknown edge", path, edge)
        if not self.stored.can_see(self.reader, stored.scope):
            self.fail(f"LEAK: edge of {stored.scope.describe()}", path, edge)
        if edge["evidenceCount"] != len(stored.evidence):
            self.fail("evidenceCount differs from the stored edge", path, edge)
        if "evidence" in edge and {c["id"] for c in edge["evidence"]} != stored.chunk_ids:
            self.fail("edge evidence is not the stored evidence", path, edge)
        asserted = len(stored.evidence - stored.chunk_ids)
        if "assertedBy" in edge and len(edge["assertedBy"]) != asserted:
            self.fail("assertedBy differs from the stored assertions", path, edge)

    def _ids(self, holder: Json, path: str) -> None:
        for chunk_id in holder["chunkIds"]:
            self._chunk_id(chunk_id, f"{path}.chunkIds")

    _ContextLine = _ids
    _EvidenceItem = _ids

    def _scoped(self, item: Json, path: str) -> None:
        if not self.stored.can_see(self.reader, as_scope(item["scope"])):
            self.fail("LEAK: an item of a scope the reader cannot see", path, item)

    _NodePropertyVersion = _scoped
    _Change = _scoped
    _Source = _scoped
    _StoredFile = _scoped

    def _NodeMatch(self, match: Json, path: str) -> None:
        parts = self.visible.parts(match["key"])
        if not parts or as_scope(match["scope"]) not in {p.scope for p in parts}:
            self.fail("LEAK: found node with no visible vertex of its scope", path, match)
        if match["node"]["key"] != match["key"]:
            self.fail("found node differs from its match", path, match)

    def _EvidencePack(self, pack: Json, path: str) -> None:
        for name in ("seeds", "relatedNodes"):
            hidden = set(pack[name]) - self.visible.keys
            if hidden:
                self.fail(f"LEAK: {name} without a visible vertex: {sorted(hidden)}", path, pack)

    # Completeness, per read path.

    def block(self, data: Json, prefix: str, probe: Probe, chunk_ids: list[str]) -> None:
        """Leak-check a block's answers, then compare each with the reference."""
        answers = {alias[len(prefix) :]: value for alias, value in data.items()
                   if alias.startswith(prefix)}  # fmt: skip
        self.walk(answers, prefix or "<root>")
        visible = self.visible
        for mode in MODES:
            found = answers[f"search_{mode}"]
            assert found["__typename"] == "SearchSuccess", (self.who, found)
            ids = {hit["chunk"]["id"] for hit in found["hits"]}
            assert ids == set(visible.chunks), (self.who, mode, ids ^ set(visible.chunks))
        filtered = answers["search_filtered"]
        assert filtered["__typename"] == "SearchSuccess", (self.who, filtered)
        expected = {i for i, c in visible.chunks.items()
                    if c.kind in FILTER_KINDS and c.source_urn in FILTER_URNS}  # fmt: skip
        assert {hit["chunk"]["id"] for hit in filtered["hits"]} == expected, self.who
        narrowed = answers["search_narrowed"]
        assert narrowed["__typename"] == "SearchSuccess", (self.who, narrowed)
        expected = visible.chunks_referencing(FILTER_ENTITY)
        assert {hit["chunk"]["id"] for hit in narrowed["hits"]} == expected, self.who
        for kind in KINDS:
            ids = {c["id"] for c in answers[f"kind_{kind}"]}
            assert ids == visible.chunks_of_kind(kind), (self.who, kind)
        asked = [*chunk_ids, MISSING_CHUNK]
        for chunk_id, chunk in zip(asked, answers["chunks"], strict=True):
            assert (chunk is not None) == (chunk_id in visible.chunks), (self.who, chunk_id)
        assert (answers["chunk"] is not None) == (asked[0] in visible.chunks), self.who
        for key, node in zip([*KEYS, MISSING_KEY], answers["nodes"], strict=True):
            assert (node is not None) == (key in visible.keys), (self.who, key, node)
        node = answers["node"]
        assert (node is not None) == (probe.entity in visible.keys), (self.who, node)
        self._found(answers["findNodes_key"], probe.entity, first=True)
        self._found(answers["findNodes_typo"], FIND_TYPO[0], first=False)
        for i, (key, depth) in enumerate(probe.neighbors):
            self._neighbors(answers[f"neighbors_{i}"], key, depth)
        for i, (start, end) in enumerate(probe.paths):
            self._path(answers[f"path_{i}"], start, end)
        pack, context = answers["evidencePack"], answers["agentContext"]
        assert pack["__typename"] == "EvidencePack", (self.who, pack)
        rag = {c for item in pack["items"] if item["source"] == "RAG" for c in item["chunkIds"]}
        assert rag <= set(visible.chunks) and (rag or not visible.chunks), (self.who, pack)
        assert context["__typename"] == "AgentContext", (self.who, context)
        assert (context["entity"] is not None) == (probe.entity in visible.keys), self.who
        for read in ("agentContext_history", "agentContext_deep"):
            found = answers[read]
            assert found["__typename"] == "AgentContext", (self.who, read, found)
            cited = {c for s in found["sections"] for line in s["lines"] for c in line["chunkIds"]}
            assert cited <= set(visible.chunks), (self.who, read, cited - set(visible.chunks))
        for edge_type in EDGE_TYPES:
            got_history = {
                (i["from"], i["edgeType"], i["to"], as_scope(i["scope"]))
                for i in answers[f"edgeHistory_{edge_type}"]
            }
            want = {e.identity for e in visible.every_edge
                    if e.from_key == probe.entity and e.edge_type == edge_type}  # fmt: skip
            assert got_history == want, (self.who, edge_type, got_history ^ want)
        sees = lambda scope: self.stored.can_see(self.reader, scope)  # noqa: E731
        graph_history.check(answers, probe.entity, self.stored.history, sees, self.who)
        declared = [t for client, t in self.stored.relations if client == self.reader.client_id]
        got_relations = [r["edgeType"] for r in answers["relations"]]
        assert got_relations == declared, (self.who, got_relations, declared)
        every_node = answers["allNodes"]
        listed = [n["key"] for n in every_node["nodes"]]
        assert not every_node["hasNextPage"] and len(listed) == len(set(listed)), self.who
        assert set(listed) == visible.keys, (self.who, "allNodes", set(listed) ^ visible.keys)
        self._listed(answers["sources"], "sourceUrn", visible.sources)
        self._listed(answers["storedFiles"], "id", visible.files)
        check_ins = answers["checkIns"]
        assert check_ins["__typename"] == "CheckInPage" and not check_ins["hasNextPage"], self.who
        got = {c["id"] for c in check_ins["nodes"]}
        assert got == visible.check_ins, (self.who, "checkIns", got ^ visible.check_ins)

    def _listed(self, page: Json, name: str, want: frozenset[tuple[str, Scope]]) -> None:
        """A listing's page is exactly the visible rows (the corpus fits in one page)."""
        assert not page["hasNextPage"], (self.who, name)
        got = {(item[name], as_scope(item["scope"])) for item in page["nodes"]}
        assert got == want, (self.who, name, got ^ want)

    def _found(self, found: Json, key: str, *, first: bool) -> None:
        assert found["__typename"] == "FoundNodes", (self.who, found)
        keys = [m["key"] for m in found["matches"]]
        assert len(keys) == len(set(keys)), (self.who, keys)
        if key not in self.visible.keys:
            assert key not in keys, (self.who, key, keys)
        elif first:  # an exact key comes first
            assert keys[:1] == [key], (self.who, key, keys)
        else:
            assert key in keys, (self.who, key, keys)

    def _neighbors(self, subgraph: Json, key: str, depth: int) -> None:
        nodes, edges = self.visible.neighborhood(key, depth)
        got_nodes = {n["key"] for n in subgraph["nodes"]}
        got_edges = {self.edge_id(e) for e in subgraph["edges"]}
        assert not subgraph["truncated"], (self.who, key)
        assert got_nodes == nodes, (self.who, key, depth, got_nodes ^ nodes)
        assert got_edges == edges, (self.who, key, depth, got_edges ^ edges)

    def _path(self, path: Json | None, start: str, end: str) -> None:
        distance = self.visible.distances(start).get(end)
        if distance is None or distance > MAX_PATH:
            assert path is None, (self.who, start, end, path)
            return
        assert path is not None and path["length"] == distance, (self.who, start, end, path)
        keys = [n["key"] for n in path["nodes"]]
        assert keys[0] == start and keys[-1] == end and len(keys) == distance + 1, keys
        for i, edge in enumerate(path["edges"]):
            ends = {edge["from"]["key"], edge["to"]["key"]}
            assert ends == {keys[i], keys[i + 1]}, (self.who, keys, edge)

    def refused(self, alias: str, result: ExecutionResult) -> None:
        """One read path narrowed outside the key's scope: a ``ScopeError``, never data."""
        self._tags(json.dumps(result.data) + str(result.errors), alias)
        value = None if result.data is None else result.data.get(alias)
        if alias.split("_")[0] in UNION_FIELDS:
            assert result.errors is None, (self.who, alias, result.errors)
            assert value is not None and value["__typename"] == "ScopeError", (alias, value)
            assert value["code"] == "OUT_OF_SCOPE", (self.who, value)
            return
        assert value is None and result.errors, (self.who, alias, result)
        for error in result.errors:
            extensions = error.extensions or {}
            assert (extensions.get("code"), extensions.get("reason")) == (
                "FORBIDDEN",
                "OUT_OF_SCOPE",
            ), (self.who, alias, error)

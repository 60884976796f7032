"""Aliases re-read inside a write unit, under locks that ``registerAlias`` also takes.

An ingest resolves its keys through a cache before its transaction starts, so an alias
registered in between (here or in another process) would leave the ingest writing the
alias vertex after the merge has run, stranding its edges where ``node(key:)`` never looks.
Both sides therefore take one transaction-scoped advisory lock per client: ingests shared
(they never queue behind each other), an alias registration or merge exclusive. An ingest
re-reads the aliases table only after its lock is granted, so it either commits before the
merge reads the graph or sees the committed alias and writes the canonical key.

One lock per client rather than per key: an ingest resolves its keys in several steps
(chunk references, nodes, edge ends, alias targets), and per-key locks taken step by step
could not be ordered, so an ingest and a merge deadlocked. Registering an alias is a rare
admin act; it waits for the client's ingests in flight, and new ones wait for it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import replace

from kenning.domain.ingestion.request import ChunkRecord, EdgeRecord, NodeRecord, SourceRecord
from kenning.storage.db.pool import Connection

# Aliases are flattened when stored, so one step is the rule; a few more cover an ingest
# that read a link of a chain while it was being re-pointed.
_MAX_HOPS = 8


def _lock_sql(*, exclusive: bool) -> str:
    """$1 client: the lock of that client's aliases (re-entrant within a transaction)."""
    fn = "pg_advisory_xact_lock" if exclusive else "pg_advisory_xact_lock_shared"
    return f"SELECT {fn}(hashtextextended('aliases' || chr(31) || $1::text, 11))"


async def lock_alias_keys(conn: Connection, client_id: str, keys: Iterable[str]) -> None:
    """The client's alias lock, exclusive, for registering ``keys`` as an alias and its
    target and merging them."""
    await conn.execute(_lock_sql(exclusive=True), client_id)


class AliasGuard:
    """One write unit's view of the aliases: keys it has locked and what they resolve to."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._locked: set[str] = set()  # clients whose alias lock this unit holds
        self._read: set[tuple[str, str]] = set()
        self._targets: dict[tuple[str, str], str] = {}

    async def resolve(self, client_id: str, keys: Collection[str]) -> dict[str, str]:
        """Each of ``keys`` mapped to its canonical key (itself when it is no alias).

        Example: after ``registerAlias(org:a → org:canon)``, ``{"org:a": "org:canon"}``.
        """
        if not client_id:  # aliases belong to a client; global rows have none
            return {key: key for key in keys}
        if client_id not in self._locked:
            await self._conn.execute(_lock_sql(exclusive=False), client_id)
            self._locked.add(client_id)
        pending = set(keys)
        for _ in range(_MAX_HOPS):
            new = sorted(k for k in pending if (client_id, k) not in self._read)
            if not new:
                break
            self._read.update((client_id, k) for k in new)
            # A statement of its own: its snapshot is taken after the lock was granted.
            rows = await self._conn.fetch(
                """SELECT alias_key, canonical_key FROM aliases
                   WHERE client_id = $1 AND alias_key = ANY($2::text[])""",
                client_id,
                new,
            )
            for row in rows:
                self._targets[(client_id, row["alias_key"])] = row["canonical_key"]
            pending = {row["canonical_key"] for row in rows}
        return {key: self._follow(client_id, key) for key in keys}

    def _follow(self, client_id: str, key: str) -> str:
        for _ in range(_MAX_HOPS):
            target = self._targets.get((client_id, key))
            if target is None or target == key:
                break
            key = target
        return key


def rekey_chunks(chunks: Sequence[ChunkRecord], keys: Mapping[str, str]) -> list[ChunkRecord]:
    """Chunks whose graph refs name canonical keys, each once."""
    return [
        c
        if all(keys.get(r, r) == r for r in c.graph_refs)
        else replace(c, graph_refs=tuple(sorted({keys.get(r, r) for r in c.graph_refs})))
        for c in chunks
    ]


def rekey_nodes(nodes: Sequence[NodeRecord], keys: Mapping[str, str]) -> list[NodeRecord]:
    """One node per canonical key; the canonical's own type and properties win, as in the
    merge."""
    merged: dict[str, NodeRecord] = {}
    # Aliases first, so a record of the canonical key itself is applied last.
    for node in sorted(nodes, key=lambda n: keys.get(n.key, n.key) == n.key):
        key = keys.get(node.key, node.key)
        kept = merged[key] if key in merged else NodeRecord(key)
        node_type = node.type if key == node.key else key.split(":", 1)[0]
        merged[key] = NodeRecord(
            key,
            node_type,
            {**kept.properties, **node.properties},
            {**node.defaults, **kept.defaults},
        )
    return [merged[key] for key in sorted(merged)]


def rekey_edges(edges: Sequence[EdgeRecord], keys: Mapping[str, str]) -> list[EdgeRecord]:
    """Edges between canonical keys, evidence united; self-loops dropped, as in the merge.
    Of united edges' properties, the first edge's win (as the upsert fills them)."""
    evidence: dict[tuple[str, str, str], set[str]] = {}
    properties: dict[tuple[str, str, str], dict[str, object]] = {}
    for edge in edges:
        start, end = keys.get(edge.from_key, edge.from_key), keys.get(edge.to_key, edge.to_key)
        if start != end:
            triple = (start, edge.edge_type, end)
            evidence.setdefault(triple, set()).update(edge.evidence_chunk_ids)
            properties[triple] = {**edge.properties, **properties.get(triple, {})}
    return [
        EdgeRecord(s, t, e, tuple(sorted(ids)), properties[(s, t, e)])
        for (s, t, e), ids in evidence.items()
    ]


def rekey_source(record: SourceRecord, keys: Mapping[str, str]) -> SourceRecord:
    """A source record whose main node and mentions are canonical keys."""
    main = record.main_node_key
    return replace(
        record,
        main_node_key=None if main is None else keys.get(main, main),
        mentions=tuple(sorted({keys.get(k, k) for k in record.mentions})),
    )

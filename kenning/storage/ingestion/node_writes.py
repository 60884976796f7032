"""Vertices upserted by a write unit, and the history of the properties they change.

Plain mentions (no properties) are inserted and never locked, so concurrent writers that
mention one popular node do not queue. A node with properties takes its property lock
(``node_versions``), and the statement that writes it returns the vertex's properties before
and after, so the values it replaced land in ``node_property_versions``, stated by the
write's source.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from kenning.domain.ingestion.node_properties import (
    NodeProvenance,
    PropertyChange,
    property_changes,
)
from kenning.domain.ingestion.request import NodeRecord
from kenning.storage.db.pool import Connection
from kenning.storage.ingestion.graph_write_sql import GraphSql
from kenning.storage.ingestion.node_versions import Parts, lock_properties, write_versions


async def upsert_vertices(
    conn: Connection,
    sql: GraphSql,
    parts: Parts,
    nodes: Sequence[NodeRecord],
    provenance: NodeProvenance | None,
) -> None:
    """Plain mentions, then given properties (they win), then defaults (fill the rest);
    every property changed is recorded as a version of the node's history."""
    await lock_properties(conn, parts, sorted({n.key for n in nodes if n.properties or n.defaults}))
    plain = [n for n in nodes if not n.properties and not n.defaults]
    if plain:
        await conn.execute(
            sql.insert_vertices(merge_properties=False),
            *parts,
            [n.key for n in plain],
            [n.type for n in plain],
            ["{}"] * len(plain),
        )
    changed: list[tuple[str, PropertyChange]] = []
    for field, fill in (("properties", False), ("defaults", True)):
        batch = [n for n in nodes if getattr(n, field)]
        if not batch:
            continue
        rows = await conn.fetch(
            sql.upsert_vertices_changed(fill=fill),
            *parts,
            [n.key for n in batch],
            [n.type for n in batch],
            [json.dumps(dict(getattr(n, field))) for n in batch],
        )
        for row in rows:
            old = json.loads(row["old"]) if row["old"] is not None else {}
            changed += [(row["key"], c) for c in property_changes(old, json.loads(row["new"]))]
    await write_versions(
        conn,
        parts,
        changed,
        source=provenance.source_urn if provenance else None,
        changed_by=None,
        observed_at=provenance.observed_at if provenance else None,
    )

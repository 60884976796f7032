"""Edge timelines kept in step with the evidence, inside the writer's transaction.

A write unit notes every (scope, from key, relation) group whose edges it touched. Before
it commits, the groups that need a timeline (the relation is declared ``ONE`` for the
client, or the group has explicit endings or earlier intervals) are recomputed from their
evidence (``kenning.domain.ingestion.validity.timeline``): ``edge_intervals`` is rewritten for
the group, each edge takes its latest interval as properties, and the evidence chunks whose
every edge has ended are marked superseded (and unmarked when one is current again). Other
groups keep the cheap rule of ``upsert_edges``: valid from the first evidence, never ended.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass

import asyncpg

from kenning.domain.ingestion.validity import (
    Assertion,
    Cardinality,
    Ending,
    EndReason,
    Interval,
    iso,
    latest,
    timeline,
)
from kenning.storage.db.pool import Connection
from kenning.storage.ingestion.graph_write_sql import GraphSql
from kenning.storage.ingestion.timeline_sql import (
    GROUPS,
    REPLACE_INTERVALS,
    SCOPE,
    edges_sql,
    mark_chunks_sql,
    set_validity_sql,
)

Parts = tuple[str, str, str]
Group = tuple[str, str]  # (from key, edge type)


async def cardinalities(conn: Connection, client_id: str) -> dict[str, Cardinality]:
    """The relations ``client_id`` declared, by edge type."""
    rows = await conn.fetch(
        "SELECT edge_type, cardinality FROM relations WHERE client_id = $1", client_id
    )
    return {r["edge_type"]: Cardinality(r["cardinality"]) for r in rows}


async def settle(conn: Connection, sql: GraphSql, touched: dict[Parts, set[Group]]) -> None:
    """Recompute the timelines of the touched groups that need one."""
    by_client: dict[str, dict[str, Cardinality]] = {}
    for parts in sorted(touched):
        groups = touched[parts]
        if parts[0] not in by_client:
            by_client[parts[0]] = await cardinalities(conn, parts[0])
        declared = by_client[parts[0]]
        needed = {g for g in groups if declared.get(g[1]) is Cardinality.ONE}
        rest = sorted(groups - needed)
        if rest:
            needed |= await _with_history(conn, parts, rest)
        if needed:
            await recompute(conn, sql, parts, needed, declared)


async def _with_history(conn: Connection, parts: Parts, groups: list[Group]) -> set[Group]:
    rows = await conn.fetch(
        f"""SELECT from_key, edge_type FROM edge_endings WHERE {SCOPE} AND {GROUPS}
            UNION SELECT from_key, edge_type FROM edge_intervals WHERE {SCOPE} AND {GROUPS}""",
        *parts,
        [g[0] for g in groups],
        [g[1] for g in groups],
    )
    return {(r["from_key"], r["edge_type"]) for r in rows}


async def recompute(
    conn: Connection,
    sql: GraphSql,
    parts: Parts,
    groups: Collection[Group],
    declared: dict[str, Cardinality],
) -> list[Interval]:
    """Rewrite the groups' intervals and edge properties; returns the intervals that end.

    Four statements after the lock: the edges with their evidence's times, the endings, the
    intervals replaced, and only the edges whose validity changed updated (with their
    chunks' supersession marks): a write that ends nothing touches no edge."""
    ordered = sorted(groups)
    froms, types = [g[0] for g in ordered], [g[1] for g in ordered]
    # One writer per group at a time, in a stable order: the reads below then see every
    # assertion and ending committed before (a retraction racing an ingest).
    await conn.execute(
        """SELECT count(pg_advisory_xact_lock(hashtextextended(
               $1::text || chr(31) || $2::text || chr(31) || $3::text || chr(31) || g.fk
               || chr(31) || g.et, 11)))
           FROM unnest($4::text[], $5::text[]) AS g(fk, et)""",
        *parts,
        froms,
        types,
    )
    rows = await conn.fetch(edges_sql(sql), *parts, froms, types)
    edges, assertions = _assertions(rows)
    ended = await _endings(conn, parts, froms, types)
    intervals_rows: list[tuple[object, ...]] = []
    updates: list[tuple[object, str]] = []
    changed: set[str] = set()  # evidence of edges that ended or hold again
    ending: list[Interval] = []
    for group in ordered:
        cardinality = declared.get(group[1], Cardinality.MANY)
        intervals = timeline(assertions.get(group, []), ended.get(group, []), cardinality)
        intervals_rows += [(group[0], group[1], *_interval_row(i)) for i in intervals]
        ending += [i for i in intervals if not i.current]
        last = latest(intervals)
        for edge in edges:
            if (edge.from_key, edge.edge_type) != group or edge.to_key not in last:
                continue
            props = _properties(last[edge.to_key])
            if props != edge.validity:
                updates.append((edge.id, json.dumps(props)))
            if ("validTo" in props) != ("validTo" in edge.validity):
                changed.update(edge.evidence)
    await conn.execute(
        REPLACE_INTERVALS,
        *parts,
        froms,
        types,
        *(list(column) for column in zip(*intervals_rows, strict=True))
        if intervals_rows
        else [[]] * 9,
    )
    if updates:
        await conn.execute(set_validity_sql(sql), [u[0] for u in updates], [u[1] for u in updates])
    if changed:
        await _mark_chunks(conn, sql, parts, sorted(changed))
    return ending


@dataclass(frozen=True, slots=True)
class _Edge:
    id: object
    from_key: str
    edge_type: str
    to_key: str
    evidence: tuple[str, ...]
    validity: dict[str, str]


def _assertions(rows: list[asyncpg.Record]) -> tuple[list[_Edge], dict[Group, list[Assertion]]]:
    """The edges (one per edge id) and one assertion per evidence chunk found."""
    edges: dict[object, _Edge] = {}
    found: dict[Group, list[Assertion]] = defaultdict(list)
    for row in rows:
        if row["id"] not in edges:
            props = json.loads(row["validity"])
            edges[row["id"]] = _Edge(
                row["id"],
                row["from_key"],
                row["edge_type"],
                row["to_key"],
                tuple(json.loads(row["evidence"])),
                {k: v for k, v in props.items() if v is not None},
            )
        if row["chunk_id"] is not None:
            found[(row["from_key"], row["edge_type"])].append(
                Assertion(row["to_key"], row["observed"], row["created_at"], row["source_urn"])
            )
    return list(edges.values()), found


async def _endings(
    conn: Connection, parts: Parts, froms: list[str], types: list[str]
) -> dict[Group, list[Ending]]:
    rows = await conn.fetch(
        f"""SELECT from_key, edge_type, to_key, valid_at, reason, ended_by, recorded_at
            FROM edge_endings WHERE {SCOPE} AND {GROUPS}""",
        *parts,
        froms,
        types,
    )
    found: dict[Group, list[Ending]] = defaultdict(list)
    for row in rows:
        found[(row["from_key"], row["edge_type"])].append(
            Ending(
                row["to_key"],
                row["valid_at"],
                EndReason(row["reason"]),
                row["ended_by"],
                row["recorded_at"],
            )
        )
    return found


def _interval_row(i: Interval) -> tuple[object, ...]:
    reason = None if i.ended_reason is None else i.ended_reason.value
    return (i.to_key, i.valid_from, i.valid_to, i.recorded_at, i.ended_at, reason, i.ended_by)


def _properties(i: Interval) -> dict[str, str]:
    props = {"validFrom": iso(i.valid_from), "recordedAt": iso(i.recorded_at)}
    if i.valid_to is not None and i.ended_at is not None and i.ended_reason is not None:
        props |= {
            "validTo": iso(i.valid_to),
            "endedAt": iso(i.ended_at),
            "endedReason": i.ended_reason.value,
            "endedBy": i.ended_by or "",
        }
    return props


async def _mark_chunks(conn: Connection, sql: GraphSql, parts: Parts, ids: list[str]) -> None:
    """Mark superseded the chunks among ``ids`` whose every edge has ended (by the source
    that ended the last of them); unmark those with a current edge again. A mark a writer
    set by naming the source (kind ``source``) stays."""
    await conn.execute(mark_chunks_sql(sql), *parts, ids)

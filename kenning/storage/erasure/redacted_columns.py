"""The rows an erasure rewrites column by column: every text and JSON column of the client's
rows that is not a chunk, a graph row or a memory item (those go whole, elsewhere).

Each table is read once for rows whose columns read like one of the subject's LIKE patterns
(a superset: ``NameMatch`` then decides, word by word); each such row is rewritten with the
subject's names replaced by ``[erased]``, or deleted where the row is only a cache or a mark.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kenning.domain.erasure.model import Counts
from kenning.domain.erasure.names import NameMatch
from kenning.storage.db.pool import Connection


@dataclass(frozen=True, slots=True)
class Columns:
    """One table's columns an erasure reads: ``texts`` (text, varchar) and ``jsons``
    (jsonb); ``delete`` drops a naming row instead of rewriting it; ``kind`` is the receipt
    count the rows add to."""

    table: str
    kind: str
    texts: tuple[str, ...] = ()
    jsons: tuple[str, ...] = ()
    delete: bool = False
    # Rows left alone: the erasure jobs, whose own transaction drops the key they carry.
    unless: str = ""


REDACTED: tuple[Columns, ...] = (
    Columns("changes", "historyRows", ("item_id", "item_key", "reason"), ("old", "new")),
    Columns("knowledge_versions", "historyRows", ("subject", "content")),
    Columns("procedure_versions", "historyRows", ("trigger_pattern", "description"), ("steps",)),
    Columns("procedures", "procedures", ("trigger_pattern", "description"), ("steps",)),
    Columns("session_entries", "sessionEntries", ("summary",), ("details",)),
    Columns("check_ins", "checkIns", ("source_urn", "input_text", "hints"), ("output", "attempts")),
    Columns("extraction_cache", "extractionCache", (), ("result",), delete=True),
    Columns(
        "ingestion_jobs",
        "jobs",
        ("idempotency_key", "last_error", "source_urn", "source_id"),
        ("payload",),
        unless="payload ->> 'task' = 'erase'",
    ),
    Columns("chunk_marks", "otherRows", ("superseded_by",), delete=True),
    Columns("edge_intervals", "historyRows", ("ended_by",)),
    Columns("node_property_versions", "historyRows", ("source", "ended_by"), ("value",)),
    Columns("edge_endings", "historyRows", ("ended_by",)),
    Columns("source_files", "otherRows", ("source_urn", "filename")),
    Columns(
        "connections", "otherRows", ("label", "owner", "root", "revoke_reason"), ("sync_cursors",)
    ),
    Columns("relations", "otherRows", ("description",)),
)


def _naming(columns: Columns) -> str:
    cols = [*columns.texts, *columns.jsons]
    tests = " OR ".join(f"{c}::text ILIKE ANY($2::text[])" for c in cols)
    unless = f" AND NOT ({columns.unless})" if columns.unless else ""
    return (
        f"SELECT ctid::text AS at, {', '.join(cols)} FROM {columns.table} "
        f"WHERE client_id = $1 AND ({tests}){unless} FOR UPDATE"
    )


def _update(columns: Columns) -> str:
    sets = [f"{c} = ${i}" for i, c in enumerate(columns.texts, 2)]
    sets += [f"{c} = ${i}::jsonb" for i, c in enumerate(columns.jsons, 2 + len(columns.texts))]
    return f"UPDATE {columns.table} SET {', '.join(sets)} WHERE ctid = $1::text::tid"


def _rewritten(row: Any, columns: Columns, names: NameMatch) -> list[Any] | None:
    """The row's new values, in column order; None when nothing in it names the subject."""
    values: list[Any] = []
    changed = False
    for c in columns.texts:
        old = row[c]
        new = names.redact(old) if isinstance(old, str) else old
        changed |= new != old
        values.append(new)
    for c in columns.jsons:
        old = json.loads(row[c]) if row[c] is not None else None
        new = names.redact_value(old)
        changed |= new != old
        values.append(json.dumps(new) if new is not None else None)
    return values if changed else None


async def redact_columns(
    conn: Connection, client_id: str, names: NameMatch, tables: Sequence[Columns] = REDACTED
) -> Counts:
    """Rewrite (or delete) every row of ``tables`` of the client that names the subject."""
    counts = Counts()
    patterns = list(names.patterns)
    for columns in tables:
        rows = await conn.fetch(_naming(columns), client_id, patterns)
        changed = [(r["at"], v) for r in rows if (v := _rewritten(r, columns, names)) is not None]
        if not changed:
            continue
        if columns.delete:
            await conn.execute(
                f"DELETE FROM {columns.table} WHERE ctid = ANY($1::text[]::tid[])",
                [at for at, _ in changed],
            )
        else:
            await conn.executemany(_update(columns), [(at, *values) for at, values in changed])
        counts[columns.kind] += len(changed)
    return counts

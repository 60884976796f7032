"""Keeping ``node_property_versions`` in step with the vertices, inside the writer's
transaction: every write that changes properties (an ingest's nodes, ``updateNode``) ends
the versions it replaces and adds the new ones; a vertex deleted ends its versions; an alias
merged into its canonical key hands its versions over.

Writers of properties hold ``lock_properties`` (exclusive, per scope and key, in key order)
from before they read a vertex's properties until they commit, so the values a write
replaces are the ones it read, and two writers never both keep a version current.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from kenning.domain.ingestion.node_properties import PropertyChange
from kenning.storage.db.pool import Connection

Parts = tuple[str, str, str]
_SCOPE = "p.client_id = $1::text AND p.project_id = $2::text AND p.group_id = $3::text"

# Transaction-level, exclusive, per (scope, key); another seed than the mention locks of
# ``GraphSql.lock_keys`` so the two never wait on each other.
LOCK_PROPERTIES = """
    SELECT count(pg_advisory_xact_lock(hashtextextended(
        $1::text || chr(31) || $2::text || chr(31) || $3::text || chr(31) || u.k, 13)))
    FROM (SELECT DISTINCT k FROM unnest($4::text[]) AS k ORDER BY k) AS u(k)
"""

# The changed names' current versions end; those not removed get a new current version.
_WRITE = f"""
    WITH c AS (
        SELECT * FROM unnest($4::text[], $5::text[], $6::jsonb[], $7::bool[])
                      AS c(k, n, v, removed)
    ),
    ended AS (
        UPDATE node_property_versions p SET ended_at = now(), ended_by = $8
        FROM c WHERE {_SCOPE} AND p.node_key = c.k AND p.name = c.n AND p.ended_at IS NULL
        RETURNING p.seq
    )
    INSERT INTO node_property_versions (client_id, project_id, group_id, node_key, name,
        value, source, changed_by, observed_at, recorded_at)
    SELECT $1, $2, $3, c.k, c.n, c.v, $9, $10, coalesce($11::timestamptz, now()), now()
    FROM c WHERE NOT c.removed
    ORDER BY c.k, c.n
"""


async def lock_properties(conn: Connection, parts: Parts, keys: Sequence[str]) -> None:
    """Hold the property lock of each of ``keys`` at ``parts`` until the transaction ends."""
    if keys:
        await conn.execute(LOCK_PROPERTIES, *parts, list(keys))


async def write_versions(
    conn: Connection,
    parts: Parts,
    changed: Sequence[tuple[str, PropertyChange]],
    *,
    source: str | None,
    changed_by: str | None,
    observed_at: datetime | None,
) -> None:
    """Record ``(key, change)`` pairs: each changed property's current version ends (by the
    source, else the key) and a value set becomes the current one, stated by ``source`` or
    set by ``changed_by``, holding since ``observed_at`` (None: now)."""
    if not changed:
        return
    await conn.execute(
        _WRITE,
        *parts,
        [key for key, _ in changed],
        [c.name for _, c in changed],
        [json.dumps(c.new) for _, c in changed],
        [c.removed for _, c in changed],
        source or changed_by,
        source,
        changed_by,
        observed_at,
    )


def end_deleted_sql() -> str:
    """A fragment for a ``WITH gone AS (DELETE ... RETURNING key)``: the current versions of
    the vertices deleted at scope ``$1..$3`` end now (by nothing: the node went)."""
    return f"""
        UPDATE node_property_versions p SET ended_at = now()
        WHERE {_SCOPE} AND p.ended_at IS NULL AND p.node_key IN (SELECT key FROM gone)
        RETURNING p.seq
    """


async def rekey_versions(
    conn: Connection, client_id: str, alias_key: str, canonical_key: str
) -> None:
    """The alias's versions become the canonical key's, in every scope of the client; where
    the canonical vertex has a current value of the same property, it stays the current one
    (as the merge keeps the canonical vertex's properties)."""
    await conn.execute(
        """UPDATE node_property_versions a
           SET node_key = $3::text,
               ended_at = CASE WHEN a.ended_at IS NULL AND EXISTS (
                   SELECT 1 FROM node_property_versions c
                   WHERE c.client_id = a.client_id AND c.project_id = a.project_id
                     AND c.group_id = a.group_id AND c.node_key = $3::text AND c.name = a.name
                     AND c.ended_at IS NULL) THEN now() ELSE a.ended_at END
           WHERE a.client_id = $1::text AND a.node_key = $2::text""",
        client_id,
        alias_key,
        canonical_key,
    )

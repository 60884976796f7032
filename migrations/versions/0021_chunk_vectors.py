"""``chunk_scopes`` and ``chunk_vectors``: what an exact vector scan reads, kept by triggers.

A ``chunks`` row is wider than PostgreSQL keeps in line, so its embedding lives in TOAST and
an exact scan of one client's partition at a million chunks took 305-323 ms. This table's
rows are narrow (about 900 bytes at 384 dimensions): the scope as a number, the key, the
embedding as ``halfvec``, then the filter columns, which a scan without filters never reads.
The key comes before the embedding: read after it, it cost a cache miss a row (47 against
43 ms over one client's 98,000 rows).

- ``chunk_scopes`` numbers each (client, project, group) a chunk is stored in. A reader's
  visible scopes are found there by the one scope predicate (a few dozen rows), so the scan
  compares an integer per row instead of evaluating the predicate over text columns, which
  cost 29 ms over one client's 98,000 rows.
- ``chunk_vectors`` is partitioned by ``HASH (client_id)`` into the same 16 partitions as
  ``chunks``, keyed by ``(client_id, id)``, with an index on ``(client_id, scope)``.
- Statement-level triggers on ``chunks`` keep both in the writing statement's transaction,
  as the BM25 triggers do: an insert numbers new scopes and adds rows, a delete removes
  them, an update rewrites the rows whose copied columns changed, ``TRUNCATE`` empties
  ``chunk_vectors``. A write that names a partition of ``chunks`` directly bypasses them.
  A new scope's number is taken with ``ON CONFLICT DO NOTHING`` and read back by the next
  statement: a second writer of the same new scope waits for the first's transaction to
  end, then reads its number; a repeatable-read writer that cannot see it fails with a
  serialization failure instead of leaving its chunks out of exact scans.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-26 16:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import context, op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PARTITIONS = 16
_SCOPE = ("client_id", "project_id", "group_id")
_FILTERS = ("kind", "knowledge_type", "tags", "source_urn")
_COLUMNS = ", ".join(("scope", "client_id", "id", "embedding", *_FILTERS))
# What a ``chunk_vectors`` row is made from: an update that changes none of it keeps the row.
_COPIED = ("client_id", "id", "project_id", "group_id", *_FILTERS, "embedding")


def _inserts(source: str) -> tuple[str, str]:
    """Number the scopes of the ``chunks`` rows in ``source`` not numbered yet, then add
    their rows: two statements. Only missing scopes are offered (each offer takes a number
    from the identity even when it conflicts), in one order, so writers adding the same new
    scopes queue on the first of them instead of deadlocking."""
    scope = ", ".join(_SCOPE)
    filters = ", ".join(f"x.{name}" for name in _FILTERS)
    known = " AND ".join(f"s.{name} = x.{name}" for name in _SCOPE)
    return (
        f"INSERT INTO chunk_scopes ({scope}) SELECT DISTINCT {scope} FROM {source} x "
        f"WHERE NOT EXISTS (SELECT 1 FROM chunk_scopes s WHERE {known}) "
        f"ORDER BY {scope} ON CONFLICT DO NOTHING",
        f"INSERT INTO chunk_vectors ({_COLUMNS}) "
        f"SELECT s.id, x.client_id, x.id, x.embedding::halfvec, {filters} FROM {source} x "
        f"JOIN chunk_scopes s ON {known}",
    )


def _insert(source: str) -> str:
    return "".join(f"{statement}; " for statement in _inserts(source))


def _changed(side: str, other: str) -> str:
    """Rows of transition table ``side`` whose row of ``other`` (same key) is missing or
    differs in a copied column: what an update removed (old side) or wrote (new side).
    Matched on the key first, so PostgreSQL can hash-join the two sides."""
    rest = [n for n in _COPIED if n not in ("client_id", "id")]
    row = ", ".join(f"o.{n}" for n in rest), ", ".join(f"x.{n}" for n in rest)
    return (
        f"(SELECT x.* FROM {side} x WHERE NOT EXISTS (SELECT 1 FROM {other} o "
        f"WHERE o.client_id = x.client_id AND o.id = x.id "
        f"AND ({row[0]}) IS NOT DISTINCT FROM ({row[1]})))"
    )


def _delete(source: str) -> str:
    return (
        f"DELETE FROM chunk_vectors v USING {source} x "
        "WHERE v.client_id = x.client_id AND v.id = x.id;"
    )


_FUNCTION = f"""
CREATE FUNCTION chunk_vectors_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN {_insert("new_chunks")}
    ELSIF TG_OP = 'UPDATE' THEN
        {_delete(_changed("old_chunks", "new_chunks"))}
        {_insert(_changed("new_chunks", "old_chunks"))}
    ELSIF TG_OP = 'DELETE' THEN {_delete("old_chunks")}
    ELSE TRUNCATE chunk_vectors;
    END IF;
    RETURN NULL;
END $$"""
_TRIGGERS = {
    "chunk_vectors_insert": "AFTER INSERT ON chunks REFERENCING NEW TABLE AS new_chunks",
    "chunk_vectors_update": (
        "AFTER UPDATE ON chunks REFERENCING OLD TABLE AS old_chunks NEW TABLE AS new_chunks"
    ),
    "chunk_vectors_delete": "AFTER DELETE ON chunks REFERENCING OLD TABLE AS old_chunks",
    "chunk_vectors_truncate": "AFTER TRUNCATE ON chunks",
}


# The side tables' rows of every chunk: the upgrade's, and ``bench.read``'s after a load
# with the triggers off.
BACKFILL = _inserts("chunks")


def upgrade() -> None:
    dim = int(context.config.attributes["settings"].embedding_dim)
    op.execute(
        "CREATE TABLE chunk_scopes (id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY, "
        "client_id varchar(200) NOT NULL, project_id varchar(200) NOT NULL, "
        "group_id varchar(200) NOT NULL, "
        "CONSTRAINT chunk_scopes_client_id_project_id_group_id_key "
        "UNIQUE (client_id, project_id, group_id))"
    )
    op.execute(
        "CREATE TABLE chunk_vectors (scope integer NOT NULL, client_id varchar(200) NOT NULL, "
        f"id varchar(64) NOT NULL, embedding halfvec({dim}) NOT NULL, kind varchar(200) NOT NULL, "
        "knowledge_type varchar(40), tags text[] NOT NULL, source_urn varchar(2048) NOT NULL, "
        "CONSTRAINT chunk_vectors_pkey PRIMARY KEY (client_id, id)"
        ") PARTITION BY HASH (client_id)"
    )
    # A partition holds several clients: a small one's scan reads its rows by this index
    # instead of every row of the partition.
    op.execute("CREATE INDEX ix_chunk_vectors_scope ON chunk_vectors (client_id, scope)")
    for remainder in range(PARTITIONS):
        op.execute(
            f"CREATE TABLE chunk_vectors_p{remainder:02d} PARTITION OF chunk_vectors "
            f"FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {remainder})"
        )
    op.execute(_FUNCTION)
    for name, when in _TRIGGERS.items():
        op.execute(f"CREATE TRIGGER {name} {when} FOR EACH STATEMENT "
                   "EXECUTE FUNCTION chunk_vectors_sync()")  # fmt: skip
    # The triggers' lock (SHARE ROW EXCLUSIVE) holds writers off until this commits, so the
    # rows copied here and the changes kept from now on neither miss nor overlap.
    for statement in BACKFILL:
        op.execute(statement)
    op.execute("ANALYZE chunk_scopes")
    op.execute("ANALYZE chunk_vectors")


def downgrade() -> None:
    for name in _TRIGGERS:
        op.execute(f"DROP TRIGGER {name} ON chunks")
    op.execute("DROP FUNCTION chunk_vectors_sync()")
    op.execute("DROP TABLE chunk_vectors")
    op.execute("DROP TABLE chunk_scopes")

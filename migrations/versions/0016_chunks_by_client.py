"""Chunks partitioned by client; BM25 document frequencies kept, postings ordered by impact.

At a million chunks both search arms slowed with the corpus, not with what the reader may
see. This revision changes the storage under them:

- ``chunks`` becomes ``PARTITION BY HASH (client_id)`` with ``PARTITIONS`` partitions, so
  every index, the HNSW graph too, exists once per partition. A reader's search names its
  own client and the global one (``client_id = ANY(ARRAY[$1::text, ''])``) and PostgreSQL
  prunes the rest: the nearest-neighbour walk visits a graph holding its tenant's rows
  (and the few tenants that share its hash), not everyone's, so the scope filter rejects
  few of the rows it meets; an HNSW build is per partition and each one fits in
  ``maintenance_work_mem``. The primary key becomes ``(client_id, id)``, as a partitioned
  table's unique keys must hold the partition key.
- ``bm25_terms``: each lexeme's document frequency per client, in slots like
  ``bm25_lengths`` (a statement adds its deltas to its backend's slot, in key order), so a
  query reads its IDF from a few rows instead of counting every posting of a common word.
- ``bm25_postings.impact``: how much one occurrence profile (``tf``, ``dl``) is worth to a
  term, BM25's saturation at a reference length of ``REFERENCE_LENGTH`` lexemes, scaled to
  0..10000; the index ``ix_bm25_postings_impact`` lists a lexeme's postings best first, so
  keyword search can read the head of a common word's list instead of all of it.

The rows are copied into the new table inside the migration's transaction; the BM25
triggers are created on it after the copy (its postings already exist). They are statement
triggers of the partitioned table: every write goes through ``chunks`` (as Kenning's do); a
write naming a partition (``chunks_p03``) directly would bypass them and leave the BM25
statistics stale.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26 02:00:00
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import sqlalchemy as sa
from alembic import op

from kenning.storage.db.revision_files import load_revision

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PARTITIONS = 16
SLOTS = 16
REFERENCE_LENGTH = 100
IMPACT = (
    f"(10000 * tf::float8 / (tf + 1.2 * (0.25 + 0.75 * dl::float8 / {REFERENCE_LENGTH})))::smallint"
)

_COLUMNS = (
    "id, source_urn, ordinal, kind, client_id, project_id, group_id, content, embedding, "
    "graph_refs, knowledge_type, info_type, tags, source_kind, connection_id, external_id, "
    "revision, content_hash, metadata, created_at, updated_at"
)
_INDEXES = (
    "CREATE INDEX ix_chunks_scope ON chunks (client_id, project_id, group_id)",
    "CREATE INDEX ix_chunks_source ON chunks (client_id, source_urn)",
    "CREATE INDEX ix_chunks_connection ON chunks (client_id, connection_id)",
    "CREATE INDEX ix_chunks_kind ON chunks (kind)",
    "CREATE INDEX ix_chunks_tsv ON chunks USING gin (content_tsv)",
    "CREATE INDEX ix_chunks_graph_refs ON chunks USING gin (graph_refs)",
    "CREATE INDEX ix_chunks_embedding_hnsw ON chunks USING hnsw "
    "(embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)",
)


# Migration 0014: its postings statement, length expression and trigger names are kept here,
# and a downgrade restores its trigger function.
_0014 = load_revision("0014_bm25.py")
# A chunk's length: its lexemes' positions (a stripped lexeme has none and counts once).
_LENGTH: str = _0014._LENGTH
# (client_id, lexeme, chunk_id, tf, dl) of every lexeme of ``rows`` (aliased ``x``).
_postings: Callable[[str], str] = _0014._postings
_TRIGGERS: dict[str, str] = _0014._TRIGGERS


def _slotted(table: str, key: str, sums: dict[str, str], deltas: str) -> str:
    """Add ``deltas`` (``key`` columns, then the ``sums``' inputs) to the backend's slot of
    ``table``, in key order; a group whose deltas all cancel writes nothing."""
    names = ", ".join(sums)
    totals = ", ".join(f"sum(d.{source})" for source in sums.values())
    nonzero = " OR ".join(f"sum(d.{source}) <> 0" for source in sums.values())
    update = ", ".join(f"{name} = l.{name} + excluded.{name}" for name in sums)
    return f"""
        INSERT INTO {table} AS l ({key}, slot, {names})
        SELECT {key}, pg_backend_pid() % {SLOTS}, {totals} FROM ({deltas}) d
        GROUP BY {key} HAVING {nonzero} ORDER BY {key}
        ON CONFLICT ({key}, slot) DO UPDATE SET {update};"""


def _statistics(rows: str, sign: str) -> str:
    """Chunk counts and lengths per client, document frequencies per client and lexeme."""
    lengths = (
        f"SELECT x.client_id, {sign}1 AS n, {sign}{_LENGTH.format(v='x.content_tsv')} AS total "
        f"FROM {rows} x"
    )
    terms = (
        f"SELECT p.client_id, p.lexeme, {sign}1 AS n "
        f"FROM ({_postings(rows)}) p(client_id, lexeme, id, tf, dl)"
    )
    return _slotted(
        "bm25_lengths", "client_id", {"chunks": "n", "total_length": "total"}, lengths
    ) + _slotted("bm25_terms", "client_id, lexeme", {"df": "n"}, terms)


def _add(rows: str) -> str:
    return f"""
        INSERT INTO bm25_postings (client_id, lexeme, chunk_id, tf, dl) {_postings(rows)};
        {_statistics(rows, "+")}"""


def _remove(rows: str) -> str:
    return f"""
        DELETE FROM bm25_postings p USING ({_postings(rows)}) r(client_id, lexeme, id, tf, dl)
        WHERE p.client_id = r.client_id AND p.lexeme = r.lexeme AND p.chunk_id = r.id;
        {_statistics(rows, "-")}"""


# Rows of an update whose postings change: gone (new key), or content or client changed.
_CHANGED_OLD = (
    "(SELECT o.* FROM old_chunks o LEFT JOIN new_chunks n ON n.id = o.id "
    "AND n.client_id = o.client_id WHERE n.id IS NULL OR n.content_tsv <> o.content_tsv)"
)
_CHANGED_NEW = (
    "(SELECT n.* FROM new_chunks n LEFT JOIN old_chunks o ON o.id = n.id "
    "AND o.client_id = n.client_id WHERE o.id IS NULL OR n.content_tsv <> o.content_tsv)"
)
_FUNCTION = f"""
CREATE OR REPLACE FUNCTION bm25_index_chunks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN {_add("new_chunks")}
    ELSIF TG_OP = 'UPDATE' THEN {_remove(_CHANGED_OLD)} {_add(_CHANGED_NEW)}
    ELSIF TG_OP = 'DELETE' THEN {_remove("old_chunks")}
    ELSE TRUNCATE bm25_postings, bm25_lengths, bm25_terms;
    END IF;
    RETURN NULL;
END $$"""


def _rebuild_chunks(partitioned: bool) -> None:
    """Copy ``chunks`` into a new table, hash-partitioned by client or plain, with the same
    columns and index names; the BM25 triggers are dropped (the caller makes them again)."""
    op.execute("ALTER TABLE chunks RENAME TO chunks_before")
    for name in _TRIGGERS:
        op.execute(f"DROP TRIGGER {name} ON chunks_before")
    op.execute("ALTER TABLE chunks_before RENAME CONSTRAINT chunks_pkey TO chunks_before_pkey")
    for definition in _INDEXES:
        name = definition.split()[2]
        op.execute(f"ALTER INDEX {name} RENAME TO {name}_before")
    like = (
        "CREATE TABLE chunks (LIKE chunks_before INCLUDING DEFAULTS INCLUDING GENERATED "
        "INCLUDING STORAGE INCLUDING COMPRESSION)"
    )
    if partitioned:
        op.execute(f"{like} PARTITION BY HASH (client_id)")
        for remainder in range(PARTITIONS):
            op.execute(
                f"CREATE TABLE chunks_p{remainder:02d} PARTITION OF chunks "
                f"FOR VALUES WITH (MODULUS {PARTITIONS}, REMAINDER {remainder})"
            )
    else:
        op.execute(like)
    op.execute(f"INSERT INTO chunks ({_COLUMNS}) SELECT {_COLUMNS} FROM chunks_before")
    op.execute("DROP TABLE chunks_before")
    key = "client_id, id" if partitioned else "id"
    op.execute(f"ALTER TABLE chunks ADD CONSTRAINT chunks_pkey PRIMARY KEY ({key})")
    for definition in _INDEXES:
        op.execute(definition)


def _create_triggers() -> None:
    for name, when in _TRIGGERS.items():
        op.execute(f"CREATE TRIGGER {name} {when} FOR EACH STATEMENT "
                   "EXECUTE FUNCTION bm25_index_chunks()")  # fmt: skip


def upgrade() -> None:
    _rebuild_chunks(partitioned=True)
    op.create_table(
        "bm25_terms",
        sa.Column("client_id", sa.String(length=200), nullable=False),
        sa.Column("lexeme", sa.Text(), nullable=False),
        sa.Column("slot", sa.SmallInteger(), nullable=False),
        sa.Column("df", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("client_id", "lexeme", "slot"),
    )
    op.execute(
        "INSERT INTO bm25_terms (client_id, lexeme, slot, df) "
        "SELECT client_id, lexeme, 0, count(*) FROM bm25_postings GROUP BY client_id, lexeme"
    )
    op.execute(
        f"ALTER TABLE bm25_postings ADD COLUMN impact smallint GENERATED ALWAYS AS ({IMPACT}) "
        "STORED"
    )
    op.execute(
        "CREATE INDEX ix_bm25_postings_impact ON bm25_postings "
        "(client_id, lexeme, impact DESC) INCLUDE (chunk_id, tf, dl)"
    )
    op.execute(_FUNCTION)
    _create_triggers()


def downgrade() -> None:
    # Since 0016 one id may exist under two clients; the old key (id alone) cannot hold them.
    bind = op.get_bind()
    twice = bind.execute(
        sa.text("SELECT id FROM chunks GROUP BY id HAVING count(*) > 1 LIMIT 1")
    ).scalar()
    if twice is not None:
        raise RuntimeError(
            f"cannot downgrade below 0016: chunk id {twice!r} exists under several clients, "
            "which the key before 0016 (id alone) cannot hold; delete one of them first"
        )
    _rebuild_chunks(partitioned=False)
    op.drop_index("ix_bm25_postings_impact", table_name="bm25_postings")
    op.drop_column("bm25_postings", "impact")
    op.drop_table("bm25_terms")
    op.execute(str(_0014._FUNCTION).replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
    _create_triggers()

"""BM25 term statistics: postings per chunk and lexeme, chunk counts and lengths per client.

KEYWORD search scores with Okapi BM25, which needs what ``ts_rank`` never had: how many
chunks hold a term (its document frequency, for IDF), how long each chunk is against the
average. Statement-level triggers on ``chunks`` keep them in the writing statement's own
transaction, so no ingestion code has to remember them and a rollback leaves none behind:

- ``bm25_postings``: one row per (client, lexeme, chunk) with the lexeme's number of
  positions in the chunk's ``content_tsv`` (``tf``) and the chunk's length in lexeme
  positions (``dl``). A term's document frequency is the count of its postings, read at
  query time from the same index range the scores come from, so it is never stale and
  needs no shared counter (one per lexeme would make concurrent ingests queue on common
  words).
- ``bm25_lengths``: per client, the number of chunks and their total length (for the
  average length). Each statement adds its net deltas to the slot of its backend
  (``pg_backend_pid() % 16``), in key order, so concurrent writers of one client rarely wait
  on one row; a reader sums the slots.

Statistics are kept per client (tenant): a reader's IDF counts its own client's chunks and
the global ones only, so scores reveal nothing about another tenant's text.

An update rewrites a chunk's postings only when its content or client changed (a re-ingest
that changes metadata writes none); ``TRUNCATE chunks`` empties both tables.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SLOTS = 16
# A chunk's length: its lexemes' positions (a stripped lexeme has none and counts once).
_LENGTH = "(SELECT coalesce(sum(coalesce(cardinality(t.positions), 1)), 0) FROM unnest({v}) t)"


def _postings(rows: str) -> str:
    """(client_id, lexeme, chunk_id, tf, dl) of every lexeme of ``rows`` (aliased ``x``)."""
    return (
        "SELECT x.client_id, t.lexeme, x.id, coalesce(cardinality(t.positions), 1), d.dl "
        f"FROM {rows} x, LATERAL {_LENGTH.format(v='x.content_tsv')} d(dl), "
        "unnest(x.content_tsv) t"
    )


def _lengths(rows: str, sign: str) -> str:
    return (
        f"SELECT x.client_id, {sign}1 AS n, {sign}{_LENGTH.format(v='x.content_tsv')} AS total "
        f"FROM {rows} x"
    )


def _apply_lengths(deltas: str) -> str:
    return f"""
        INSERT INTO bm25_lengths AS l (client_id, slot, chunks, total_length)
        SELECT client_id, pg_backend_pid() % {SLOTS}, sum(n), sum(total) FROM ({deltas}) d
        GROUP BY client_id HAVING sum(n) <> 0 OR sum(total) <> 0 ORDER BY client_id
        ON CONFLICT (client_id, slot) DO UPDATE
        SET chunks = l.chunks + excluded.chunks,
            total_length = l.total_length + excluded.total_length;"""


def _add(rows: str) -> str:
    return f"""
        INSERT INTO bm25_postings (client_id, lexeme, chunk_id, tf, dl) {_postings(rows)};
        {_apply_lengths(_lengths(rows, "+"))}"""


def _remove(rows: str) -> str:
    return f"""
        DELETE FROM bm25_postings p USING ({_postings(rows)}) r(client_id, lexeme, id, tf, dl)
        WHERE p.client_id = r.client_id AND p.lexeme = r.lexeme AND p.chunk_id = r.id;
        {_apply_lengths(_lengths(rows, "-"))}"""


# Rows of an update whose postings change: gone (new id), or content or client changed.
_CHANGED_OLD = (
    "(SELECT o.* FROM old_chunks o LEFT JOIN new_chunks n ON n.id = o.id "
    "WHERE n.id IS NULL OR n.client_id <> o.client_id OR n.content_tsv <> o.content_tsv)"
)
_CHANGED_NEW = (
    "(SELECT n.* FROM new_chunks n LEFT JOIN old_chunks o ON o.id = n.id "
    "WHERE o.id IS NULL OR n.client_id <> o.client_id OR n.content_tsv <> o.content_tsv)"
)
_FUNCTION = f"""
CREATE FUNCTION bm25_index_chunks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN {_add("new_chunks")}
    ELSIF TG_OP = 'UPDATE' THEN {_remove(_CHANGED_OLD)} {_add(_CHANGED_NEW)}
    ELSIF TG_OP = 'DELETE' THEN {_remove("old_chunks")}
    ELSE TRUNCATE bm25_postings, bm25_lengths;
    END IF;
    RETURN NULL;
END $$"""
_TRIGGERS = {
    "bm25_chunks_insert": "AFTER INSERT ON chunks REFERENCING NEW TABLE AS new_chunks",
    "bm25_chunks_update": (
        "AFTER UPDATE ON chunks REFERENCING OLD TABLE AS old_chunks NEW TABLE AS new_chunks"
    ),
    "bm25_chunks_delete": "AFTER DELETE ON chunks REFERENCING OLD TABLE AS old_chunks",
    "bm25_chunks_truncate": "AFTER TRUNCATE ON chunks",
}


def upgrade() -> None:
    op.create_table(
        "bm25_postings",
        sa.Column("client_id", sa.String(length=200), nullable=False),
        sa.Column("lexeme", sa.Text(), nullable=False),
        sa.Column("chunk_id", sa.String(length=64), nullable=False),
        sa.Column("tf", sa.SmallInteger(), nullable=False),
        sa.Column("dl", sa.Integer(), nullable=False),
    )
    op.create_table(
        "bm25_lengths",
        sa.Column("client_id", sa.String(length=200), nullable=False),
        sa.Column("slot", sa.SmallInteger(), nullable=False),
        sa.Column("chunks", sa.BigInteger(), nullable=False),
        sa.Column("total_length", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("client_id", "slot"),
    )
    op.execute(_FUNCTION)
    for name, when in _TRIGGERS.items():
        op.execute(f"CREATE TRIGGER {name} {when} FOR EACH STATEMENT "
                   "EXECUTE FUNCTION bm25_index_chunks()")  # fmt: skip
    # The triggers' lock (SHARE ROW EXCLUSIVE) holds writers off until this commits, so the
    # chunks indexed here and the changes indexed from now on neither miss nor overlap. The
    # key is built after the load, which is several times faster than maintaining it.
    op.execute(f"INSERT INTO bm25_postings (client_id, lexeme, chunk_id, tf, dl) "
               f"{_postings('chunks')}")  # fmt: skip
    op.execute(
        "INSERT INTO bm25_lengths (client_id, slot, chunks, total_length) "
        f"SELECT client_id, 0, count(*), sum({_LENGTH.format(v='content_tsv')}) "
        "FROM chunks GROUP BY client_id"
    )
    # tf and dl ride in the key's index, so scoring reads the index alone.
    op.execute("ALTER TABLE bm25_postings ADD CONSTRAINT bm25_postings_pkey "
               "PRIMARY KEY (client_id, lexeme, chunk_id) INCLUDE (tf, dl)")  # fmt: skip


def downgrade() -> None:
    for name in _TRIGGERS:
        op.execute(f"DROP TRIGGER {name} ON chunks")
    op.execute("DROP FUNCTION bm25_index_chunks()")
    op.drop_table("bm25_lengths")
    op.drop_table("bm25_postings")

"""BM25 postings keep one index, keyed by impact: ``(client_id, lexeme, impact, chunk_id)``.

Since 0016 every posting was written to two btrees: the key ``(client_id, lexeme,
chunk_id)`` and ``ix_bm25_postings_impact`` ``(client_id, lexeme, impact DESC)``. At a
million chunks (53 M postings, 4 GB each) a new chunk's postings land on random leaves of
both, and that insert became the largest cost of a write that grows with the corpus (4.3 ms
a chunk against 1.6 into an empty database, measured by ``pg_stat_statements`` during
``bench.read``'s ingest). One key serves every reader of the postings:

- the heads of KEYWORD's top-k statement: a lexeme's postings by impact, best first (a
  backward scan);
- the exhaustive statement: every posting of a lexeme;
- the triggers' deletes: a removed chunk's ``tf`` and ``dl`` give its impact, so each
  posting is found by its whole key;
- exact rescoring reads the candidate chunk's own ``content_tsv`` instead of probing
  postings by chunk (``kenning.storage.retrieval.search_sql``).

What this gives up: the key no longer makes (client, lexeme, chunk) unique by itself, and a
delete finds a posting only while its ``tf`` and ``dl`` match the chunk's ``content_tsv``.
Both hold as long as every write goes through ``chunks``' triggers (as 0016 requires: a
write naming a partition directly bypasses them, and such stale postings could then no
longer be deleted by the triggers).

The upgrade rebuilds the key under an exclusive lock on ``bm25_postings``: chunk writes wait
for it (2 min 9 s at a million chunks here).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-26 04:40:00
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from alembic import op

from kenning.storage.db.revision_files import load_revision

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_0016 = load_revision("0016_chunks_by_client.py")
_postings: Callable[[str], str] = _0016._postings
_statistics: Callable[[str, str], str] = _0016._statistics
_add: Callable[[str], str] = _0016._add


def impact(tf: str, dl: str) -> str:
    """0016's ``impact`` expression over ``tf`` and ``dl`` (its generated column's)."""
    return (
        f"(10000 * {tf}::float8 / ({tf} + 1.2 * (0.25 + 0.75 * {dl}::float8 / "
        f"{_0016.REFERENCE_LENGTH})))::smallint"
    )


if impact("tf", "dl") != _0016.IMPACT:  # the deletes must compute what the column holds
    raise RuntimeError("0019's impact expression differs from 0016's generated column")


def _remove(rows: str) -> str:
    found = impact("r.tf::smallint", "r.dl::integer")
    return f"""
        DELETE FROM bm25_postings p USING ({_postings(rows)}) r(client_id, lexeme, id, tf, dl)
        WHERE p.client_id = r.client_id AND p.lexeme = r.lexeme AND p.impact = {found}
          AND p.chunk_id = r.id;
        {_statistics(rows, "-")}"""


_FUNCTION = f"""
CREATE OR REPLACE FUNCTION bm25_index_chunks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN {_add("new_chunks")}
    ELSIF TG_OP = 'UPDATE' THEN {_remove(_0016._CHANGED_OLD)} {_add(_0016._CHANGED_NEW)}
    ELSIF TG_OP = 'DELETE' THEN {_remove("old_chunks")}
    ELSE TRUNCATE bm25_postings, bm25_lengths, bm25_terms;
    END IF;
    RETURN NULL;
END $$"""
KEY = "PRIMARY KEY (client_id, lexeme, impact, chunk_id) INCLUDE (tf, dl)"


def upgrade() -> None:
    op.execute("ALTER TABLE bm25_postings DROP CONSTRAINT bm25_postings_pkey")
    op.execute("DROP INDEX ix_bm25_postings_impact")
    op.execute(f"ALTER TABLE bm25_postings ADD CONSTRAINT bm25_postings_pkey {KEY}")
    op.execute(_FUNCTION)


def downgrade() -> None:
    op.execute("ALTER TABLE bm25_postings DROP CONSTRAINT bm25_postings_pkey")
    op.execute("ALTER TABLE bm25_postings ALTER COLUMN impact DROP NOT NULL")
    op.execute(
        "ALTER TABLE bm25_postings ADD CONSTRAINT bm25_postings_pkey "
        "PRIMARY KEY (client_id, lexeme, chunk_id) INCLUDE (tf, dl)"
    )
    op.execute(
        "CREATE INDEX ix_bm25_postings_impact ON bm25_postings "
        "(client_id, lexeme, impact DESC) INCLUDE (chunk_id, tf, dl)"
    )
    op.execute(_0016._FUNCTION)

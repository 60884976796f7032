"""Tables of BM25 term statistics, kept by triggers on ``chunks`` (migration 0014).

``bm25_postings`` holds one row per client, lexeme and chunk with the lexeme's count in the
chunk (``tf``) and the chunk's length (``dl``); ``bm25_lengths`` the chunk count and total
length per client and ``bm25_terms`` each lexeme's document frequency per client, both in
slots summed on read; ``impact`` (migration 0016) orders a lexeme's postings in the key
(migration 0019), so a backward scan reads them best first. Autovacuum cleans that key after
100,000 dead postings and never skips it (migration 0023's table options, which the model
does not carry).
Read by ``kenning.storage.retrieval.bm25_sql``.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

# BM25's saturation of (tf, dl) at a reference length of 100 lexemes, 0..10000 (0016).
IMPACT = "(10000 * tf::float8 / (tf + 1.2 * (0.25 + 0.75 * dl::float8 / 100)))::smallint"


class Bm25PostingRow(SQLModel, table=True):
    """A lexeme's occurrences in one chunk of a client."""

    __tablename__ = "bm25_postings"
    __table_args__ = (
        # One btree (migration 0019): a lexeme's postings by impact, each found by its key.
        sa.PrimaryKeyConstraint(
            "client_id", "lexeme", "impact", "chunk_id", postgresql_include=["tf", "dl"]
        ),
    )

    client_id: str = Field(max_length=200)
    lexeme: str = Field(sa_type=sa.Text)
    chunk_id: str = Field(max_length=64)
    tf: int = Field(sa_type=sa.SmallInteger)
    dl: int
    impact: int = Field(
        sa_column=sa.Column(
            sa.SmallInteger,
            sa.Computed(IMPACT, persisted=True),
        )
    )


class Bm25TermRow(SQLModel, table=True):
    """One slot of a lexeme's document frequency in a client (migration 0016)."""

    __tablename__ = "bm25_terms"

    client_id: str = Field(primary_key=True, max_length=200)
    lexeme: str = Field(primary_key=True, sa_type=sa.Text)
    slot: int = Field(primary_key=True, sa_type=sa.SmallInteger)
    df: int = Field(sa_type=sa.BigInteger)


class Bm25LengthRow(SQLModel, table=True):
    """One slot of a client's chunk count and total chunk length."""

    __tablename__ = "bm25_lengths"

    client_id: str = Field(primary_key=True, max_length=200)
    slot: int = Field(primary_key=True, sa_type=sa.SmallInteger)
    chunks: int = Field(sa_type=sa.BigInteger)
    total_length: int = Field(sa_type=sa.BigInteger)

"""Drop the GIN index on ``chunks.content_tsv``, which no statement reads since 0016.

KEYWORD search finds its candidates in ``bm25_postings`` (by impact or whole lists) and
only checks ``content_tsv @@ query`` on the chunk rows it has already looked up by key; no
read plans through this index. Every chunk write still paid for it: the GIN's pending list
and the merges that empty it into posting trees, which grow with the corpus. (Its share of
a write was not measured on its own: dropping it and a larger ``shared_buffers`` together
moved ingest with a million chunks stored from about 0.71 to about 0.8 of an empty
database, in runs too noisy to split.)

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-26 04:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index("ix_chunks_tsv", table_name="chunks")


def downgrade() -> None:
    op.create_index("ix_chunks_tsv", "chunks", ["content_tsv"], postgresql_using="gin")

"""An index on ``chunks.id`` alone, one per partition.

Since 0016 the key is ``(client_id, id)``. Lookups by id (``chunks_by_ids``, an edge's
evidence, a global reader's reads, which name no client) would otherwise read every
partition whole; with this index each partition answers from a btree probe.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26 02:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_chunks_id", "chunks", ["id"])


def downgrade() -> None:
    op.drop_index("ix_chunks_id", table_name="chunks")

"""Kenning's own model calls: check-in records of structureKnowledge, and the extraction
cache keyed by (client, chunk content hash, model, prompt version).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25 20:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _created() -> sa.Column[object]:
    return sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.text("now()"),
                     nullable=False)  # fmt: skip


def _scope() -> list[sa.Column[object]]:
    return [
        sa.Column("client_id", sa.String(length=200), nullable=False),
        sa.Column("project_id", sa.String(length=200), server_default="", nullable=False),
        sa.Column("group_id", sa.String(length=200), server_default="", nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "check_ins",
        sa.Column("id", sa.String(length=36), nullable=False),
        *_scope(),
        sa.Column("caller", sa.String(length=200), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("source_urn", sa.String(length=2048), nullable=True),
        sa.Column("input_text", sa.Text(), nullable=True),
        sa.Column("input_hash", sa.String(length=64), nullable=False),
        sa.Column("hints", sa.Text(), nullable=True),
        sa.Column("output", postgresql.JSONB(), nullable=True),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("prompt_version", sa.String(length=40), nullable=False),
        sa.Column(
            "attempts", postgresql.JSONB(), server_default=sa.text("'[]'::jsonb"), nullable=False
        ),
        sa.Column("duration_ms", sa.Float(), nullable=False),
        _created(),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_check_ins_recent",
        "check_ins",
        ["client_id", "project_id", "group_id", "created_at"],
    )
    op.create_table(
        "extraction_cache",
        sa.Column("client_id", sa.String(length=200), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("prompt_version", sa.String(length=40), nullable=False),
        sa.Column(
            "result", postgresql.JSONB(), server_default=sa.text("'{}'::jsonb"), nullable=False
        ),
        _created(),
        sa.PrimaryKeyConstraint("client_id", "content_hash", "model", "prompt_version"),
    )


def downgrade() -> None:
    op.drop_table("extraction_cache")
    op.drop_table("check_ins")

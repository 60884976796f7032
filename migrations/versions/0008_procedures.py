"""Procedural memory: a client's procedures with their steps, track record and embedding.

The embedding has the configured dimension, like the chunks' (see 0001).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25 18:12:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects import postgresql

from kenning.settings import Settings

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _embedding_dim() -> int:
    config = op.get_context().config
    assert config is not None, "run migrations through Alembic's config"
    settings = config.attributes["settings"]
    assert isinstance(settings, Settings)
    return settings.embedding_dim


def _timestamp(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), server_default=sa.text("now()"),
                     nullable=False)  # fmt: skip


def upgrade() -> None:
    op.create_table(
        "procedures",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("client_id", sa.String(length=200), nullable=False),
        sa.Column("trigger_pattern", sa.String(length=500), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column(
            "steps", postgresql.JSONB(), server_default=sa.text("'[]'::jsonb"), nullable=False
        ),
        sa.Column("source", sa.String(length=20), nullable=False),
        sa.Column("usage_count", sa.Integer(), server_default="0", nullable=False),
        sa.Column("success_count", sa.Integer(), server_default="0", nullable=False),
        sa.Column("last_used", sa.DateTime(timezone=True), nullable=True),
        sa.Column("embedding", Vector(_embedding_dim()), nullable=True),
        sa.Column("created_by", sa.String(length=100), nullable=False),
        _timestamp("created_at"),
        _timestamp("updated_at"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_procedures_trigger", "procedures", ["client_id", "trigger_pattern"])


def downgrade() -> None:
    op.drop_table("procedures")

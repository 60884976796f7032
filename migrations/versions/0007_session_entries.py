"""Session memory: entries per client and project, kept in PostgreSQL until they expire.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25 18:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "session_entries",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("client_id", sa.String(length=200), nullable=False),
        sa.Column("project_id", sa.String(length=200), server_default="", nullable=False),
        sa.Column("source", sa.String(length=40), nullable=False),
        sa.Column("summary", sa.String(length=200), nullable=False),
        sa.Column(
            "details",
            postgresql.JSONB(),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.Column("task_id", sa.String(length=200), nullable=True),
        sa.Column("promoted", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("created_by", sa.String(length=100), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_session_entries_recent", "session_entries", ["client_id", "project_id", "created_at"]
    )
    op.create_index("ix_session_entries_expiry", "session_entries", ["expires_at"])


def downgrade() -> None:
    op.drop_table("session_entries")

"""Sources (idempotency by content hash) and the nodes each source mentions.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21 12:45:48.226258
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "source_mentions",
        sa.Column("client_id", sa.String(length=200), nullable=False),
        sa.Column("project_id", sa.String(length=200), nullable=False),
        sa.Column("group_id", sa.String(length=200), nullable=False),
        sa.Column("source_urn", sa.String(length=2048), nullable=False),
        sa.Column("node_key", sa.String(length=512), nullable=False),
        sa.PrimaryKeyConstraint("client_id", "project_id", "group_id", "source_urn", "node_key"),
    )
    op.create_index(
        "ix_mentions_node",
        "source_mentions",
        ["client_id", "project_id", "group_id", "node_key"],
        unique=False,
    )
    op.create_table(
        "sources",
        sa.Column("client_id", sa.String(length=200), nullable=False),
        sa.Column("project_id", sa.String(length=200), nullable=False),
        sa.Column("group_id", sa.String(length=200), nullable=False),
        sa.Column("source_urn", sa.String(length=2048), nullable=False),
        sa.Column("kind", sa.String(length=200), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("main_node_key", sa.String(length=512), nullable=True),
        sa.Column("connection_id", sa.String(length=200), nullable=True),
        sa.Column("chunk_count", sa.Integer(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("client_id", "project_id", "group_id", "source_urn"),
    )
    op.create_index(
        "ix_sources_connection", "sources", ["client_id", "connection_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_sources_connection", table_name="sources")
    op.drop_table("sources")
    op.drop_index("ix_mentions_node", table_name="source_mentions")
    op.drop_table("source_mentions")

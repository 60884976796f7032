"""Session memory per group too: a group scope's entries are its group's, not the client's.

A group key (client, no project, group) used to write into and read the client-wide
session, so another group of the same client read its entries, which its chunks at that
scope hide. Existing rows are client or project sessions and keep ``group_id`` empty.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25 18:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "session_entries",
        sa.Column("group_id", sa.String(length=200), server_default="", nullable=False),
    )
    op.drop_index("ix_session_entries_recent", table_name="session_entries")
    op.create_index(
        "ix_session_entries_recent",
        "session_entries",
        ["client_id", "project_id", "group_id", "created_at"],
    )


def downgrade() -> None:
    op.drop_index("ix_session_entries_recent", table_name="session_entries")
    op.create_index(
        "ix_session_entries_recent", "session_entries", ["client_id", "project_id", "created_at"]
    )
    op.drop_column("session_entries", "group_id")

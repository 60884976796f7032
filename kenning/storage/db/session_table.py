"""The ``session_entries`` table: an agent session's short-lived memory, per client and project.

Entries live in PostgreSQL, not Redis (the local stack runs Redis without persistence), so a
server or Redis restart loses none; they expire by ``expires_at``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import Field, SQLModel


class SessionEntryRow(SQLModel, table=True):
    """One entry of a client's project session: what happened, newest read first."""

    __tablename__ = "session_entries"
    __table_args__ = (
        sa.Index("ix_session_entries_recent", "client_id", "project_id", "group_id", "created_at"),
        sa.Index("ix_session_entries_expiry", "expires_at"),
    )

    id: str = Field(primary_key=True, max_length=36)
    client_id: str = Field(max_length=200)
    project_id: str = Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)
    # A group scope's own session (empty for a project's or the client's).
    group_id: str = Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)
    source: str = Field(max_length=40)
    # Whose entry: "" for everyone of the session, else one user's (a node key); and which
    # agent wrote it.
    user_key: str = Field(default="", sa_column_kwargs={"server_default": ""}, max_length=300)
    agent_id: str | None = Field(default=None, max_length=200)
    summary: str = Field(max_length=200)
    details: dict[str, Any] = Field(
        default_factory=dict,
        sa_column=sa.Column(JSONB(), nullable=False, server_default=sa.text("'{}'::jsonb")),
    )
    task_id: str | None = Field(default=None, max_length=200)
    promoted: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    created_by: str = Field(max_length=100)
    created_at: datetime = Field(
        sa_column=sa.Column(
            sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")
        )
    )
    expires_at: datetime = Field(sa_column=sa.Column(sa.DateTime(timezone=True), nullable=False))

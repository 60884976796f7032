"""The ``procedures`` table: how a client's agents do a recurring task, step by step.

Found by exact trigger and by similarity of the trigger and description (``embedding``), and
ranked by how often and how recently they worked (``usage_count``, ``success_count``,
``last_used``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import Field, SQLModel


def _timestamp() -> Any:
    return Field(
        sa_column=sa.Column(
            sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")
        )
    )


class ProcedureRow(SQLModel, table=True):
    """One procedure: its trigger, description, steps and track record."""

    __tablename__ = "procedures"
    __table_args__ = (sa.Index("ix_procedures_trigger", "client_id", "trigger_pattern"),)

    id: str = Field(primary_key=True, max_length=36)
    client_id: str = Field(max_length=200)
    trigger_pattern: str = Field(max_length=500)
    description: str = Field(sa_column=sa.Column(sa.Text(), nullable=False))
    steps: list[dict[str, Any]] = Field(
        default_factory=list,
        sa_column=sa.Column(JSONB(), nullable=False, server_default=sa.text("'[]'::jsonb")),
    )
    source: str = Field(max_length=20)
    # Whose procedure: "" for the whole client, else one user's (a node key); and which
    # agent learned it. Saving the same trigger, source and user again makes a new version.
    user_key: str = Field(default="", sa_column_kwargs={"server_default": ""}, max_length=300)
    agent_id: str | None = Field(default=None, max_length=200)
    version: int = Field(default=1, sa_column_kwargs={"server_default": "1"})
    usage_count: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    success_count: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    last_used: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )
    # The dimension is the configured one (see tables.EMBEDDING).
    embedding: Any = Field(default=None, sa_column=sa.Column(Vector(), nullable=True))
    created_by: str = Field(max_length=100)
    created_at: datetime = _timestamp()
    updated_at: datetime = _timestamp()

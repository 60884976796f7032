"""The queue's maintained counts (migration 0013), declared for ``alembic check``."""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import Field, SQLModel


class QueueCountRow(SQLModel, table=True):
    """Jobs per scope, lane and status; triggers on ``ingestion_jobs`` keep it (0013)."""

    __tablename__ = "queue_counts"
    client_id: str = Field(primary_key=True, max_length=200)
    project_id: str = Field(primary_key=True, max_length=200)
    group_id: str = Field(primary_key=True, max_length=200)
    lane: str = Field(primary_key=True, max_length=20)
    status: str = Field(primary_key=True, max_length=40)
    n: int = Field(sa_type=sa.BigInteger)

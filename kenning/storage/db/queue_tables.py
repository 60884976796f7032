"""The queue's tables, declared for ``alembic check``: its jobs (``ingestion_jobs``) and
their maintained counts (migration 0013)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import Field, SQLModel


def _stamp() -> sa.Column[datetime]:
    return sa.Column(sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()"))


class IngestionJobRow(SQLModel, table=True):
    """A durable unit of queued ingestion work."""

    __tablename__ = "ingestion_jobs"
    __table_args__ = (
        sa.Index(
            "ix_jobs_claim",
            "priority",
            "queue_position",
            "created_at",
            postgresql_where=sa.text("status = 'QUEUED'"),
        ),
        sa.Index("ix_jobs_connection", "client_id", "connection_id"),
        # In-flight dedup: one QUEUED or RUNNING job per identity and scope, enforced here
        # so two simultaneous requests cannot both insert.
        sa.Index(
            "ux_jobs_inflight",
            "client_id",
            "project_id",
            "group_id",
            "idempotency_key",
            unique=True,
            postgresql_where=sa.text("status IN ('QUEUED', 'RUNNING')"),
        ),
        sa.Index(
            "ix_jobs_source_done",
            "client_id",
            "project_id",
            "group_id",
            "source_key",
            "finished_at",
            postgresql_where=sa.text("status IN ('INDEXED', 'SKIPPED_DUPLICATE')"),
        ),
        sa.Index(
            "ix_jobs_lease", "lease_expires_at", postgresql_where=sa.text("status = 'RUNNING'")
        ),
        sa.Index("ix_jobs_created", "created_at", "id"),
        # A purge's cancel of one source's live jobs, and the file sweep's (0024).
        sa.Index(
            "ix_jobs_live_source",
            "client_id",
            "project_id",
            "group_id",
            "source_urn",
            postgresql_where=sa.text("status IN ('QUEUED', 'RUNNING')"),
        ),
        sa.Index(
            "ix_jobs_file",
            sa.text("((payload -> 'file'::text) ->> 'id'::text)"),
            postgresql_where=sa.text("payload ->> 'task' = 'file'"),
        ),
    )

    id: str = Field(primary_key=True, max_length=36)
    idempotency_key: str = Field(max_length=2048)
    status: str = Field(max_length=40)
    stage: str | None = Field(default=None, max_length=40)
    lane: str = Field(max_length=20)
    priority: int
    queue_position: int | None = None
    attempts: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    next_attempt_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True))
    )
    lease_owner: str | None = Field(default=None, max_length=200)
    heartbeat_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True))
    )
    lease_expires_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True))
    )
    last_error: str | None = Field(default=None, sa_column=sa.Column(sa.Text()))
    # Since when the job's model has not answered (stage WAITING_FOR_MODEL); null otherwise.
    waiting_for_model_since: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True))
    )
    client_id: str = Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)
    project_id: str = Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)
    group_id: str = Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)
    source_urn: str | None = Field(default=None, max_length=2048)
    connection_id: str | None = Field(default=None, max_length=200)
    source_kind: str | None = Field(default=None, max_length=200)
    source_id: str | None = Field(default=None, max_length=2048)
    content_version: str | None = Field(default=None, max_length=200)
    source_key: str | None = Field(default=None, max_length=64)
    # Bumped by every change; subscribers drop events older than what they have shown.
    version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    payload: dict[str, Any] = Field(
        default_factory=dict, sa_column=sa.Column(JSONB(), nullable=False)
    )
    created_at: datetime = Field(sa_column=_stamp())
    updated_at: datetime = Field(sa_column=_stamp())
    finished_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True))
    )


class QueueCountRow(SQLModel, table=True):
    """Jobs per scope, lane and status; triggers on ``ingestion_jobs`` keep it (0013)."""

    __tablename__ = "queue_counts"
    client_id: str = Field(primary_key=True, max_length=200)
    project_id: str = Field(primary_key=True, max_length=200)
    group_id: str = Field(primary_key=True, max_length=200)
    lane: str = Field(primary_key=True, max_length=20)
    status: str = Field(primary_key=True, max_length=40)
    n: int = Field(sa_type=sa.BigInteger)

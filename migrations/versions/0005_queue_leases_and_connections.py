"""Durable queue: idempotency identity, leases, change versions, in-flight dedup; connection
details (root, owner, revocation time).

The partial unique index ``ux_jobs_inflight`` is what makes two simultaneous requests for
one identity yield one job: the second insert conflicts instead of racing a check.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-21 13:05:12
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_INFLIGHT = sa.text("status IN ('QUEUED', 'RUNNING')")
_DONE = sa.text("status IN ('INDEXED', 'SKIPPED_DUPLICATE')")
_RUNNING = sa.text("status = 'RUNNING'")


def upgrade() -> None:
    op.add_column("connections", sa.Column("root", sa.String(length=2048), nullable=True))
    op.add_column("connections", sa.Column("owner", sa.String(length=500), nullable=True))
    op.add_column("connections", sa.Column("revoked_at", sa.DateTime(timezone=True)))
    jobs = "ingestion_jobs"
    op.add_column(jobs, sa.Column("lease_expires_at", sa.DateTime(timezone=True)))
    op.add_column(jobs, sa.Column("source_kind", sa.String(length=200), nullable=True))
    op.add_column(jobs, sa.Column("source_id", sa.String(length=2048), nullable=True))
    op.add_column(jobs, sa.Column("content_version", sa.String(length=200), nullable=True))
    op.add_column(jobs, sa.Column("source_key", sa.String(length=64), nullable=True))
    op.add_column(jobs, sa.Column("version", sa.Integer(), server_default="0", nullable=False))
    op.drop_index("ix_jobs_idempotency", table_name=jobs)
    op.create_index("ix_jobs_created", jobs, ["created_at", "id"])
    op.create_index("ix_jobs_lease", jobs, ["lease_expires_at"], postgresql_where=_RUNNING)
    op.create_index(
        "ix_jobs_source_done",
        jobs,
        ["client_id", "project_id", "group_id", "source_key", "finished_at"],
        postgresql_where=_DONE,
    )
    op.create_index(
        "ux_jobs_inflight",
        jobs,
        ["client_id", "project_id", "group_id", "idempotency_key"],
        unique=True,
        postgresql_where=_INFLIGHT,
    )


def downgrade() -> None:
    jobs = "ingestion_jobs"
    op.drop_index("ux_jobs_inflight", table_name=jobs)
    op.drop_index("ix_jobs_source_done", table_name=jobs)
    op.drop_index("ix_jobs_lease", table_name=jobs)
    op.drop_index("ix_jobs_created", table_name=jobs)
    op.create_index("ix_jobs_idempotency", jobs, ["client_id", "idempotency_key"])
    for column in (
        "version",
        "source_key",
        "content_version",
        "source_id",
        "source_kind",
        "lease_expires_at",
    ):
        op.drop_column(jobs, column)
    for column in ("revoked_at", "owner", "root"):
        op.drop_column("connections", column)

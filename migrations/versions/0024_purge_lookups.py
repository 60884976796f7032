"""Indexes a purge and the file sweep look jobs and originals up by.

- ``ix_jobs_live_source``: a purge cancels the queued and running jobs of one source at one
  scope (``PgJobQueue.cancel_purged``); without it that read scans every job of the client.
- ``ix_jobs_file``: the file sweep asks, for each original not yet indexed, whether any
  "file" job names it in its payload (``payload->'file'->>'id'``).
- ``ix_source_files_unindexed``: the sweep reads only the originals not yet indexed.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-07 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "ix_jobs_live_source",
        "ingestion_jobs",
        ["client_id", "project_id", "group_id", "source_urn"],
        postgresql_where=sa.text("status IN ('QUEUED', 'RUNNING')"),
    )
    op.create_index(
        "ix_jobs_file",
        "ingestion_jobs",
        [sa.text("(payload -> 'file' ->> 'id')")],
        postgresql_where=sa.text("payload ->> 'task' = 'file'"),
    )
    op.create_index(
        "ix_source_files_unindexed",
        "source_files",
        ["created_at"],
        postgresql_where=sa.text("indexed_at IS NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_source_files_unindexed", table_name="source_files")
    op.drop_index("ix_jobs_file", table_name="ingestion_jobs")
    op.drop_index("ix_jobs_live_source", table_name="ingestion_jobs")

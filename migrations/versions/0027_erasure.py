"""Erasure of a person: receipts of what each erasure removed, and tombstones that later
writes naming an erased subject are checked against (``kenning.domain.erasure``).

Neither table holds a key or a name: a receipt counts rows per kind, a tombstone keeps the
salted hash of one erased form's words and how many words it has. Stored originals that an
erasure drops say why (``source_files.not_kept`` ``ERASED``, within its 40 characters).

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-10 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _now() -> sa.TextClause:
    return sa.text("now()")


def upgrade() -> None:
    op.create_table(
        "erasure_receipts",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("client_id", sa.String(200), nullable=False),
        sa.Column("mode", sa.String(10), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("requested_by", sa.String(100), nullable=False),
        sa.Column(
            "requested_at", sa.DateTime(timezone=True), nullable=False, server_default=_now()
        ),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("job_id", sa.String(36), nullable=True),
        sa.Column("counts", JSONB(), nullable=False, server_default=sa.text("'{}'::jsonb")),
        sa.CheckConstraint("mode IN ('DELETE', 'REDACT')", name="ck_erasure_receipts_mode"),
        sa.CheckConstraint("status IN ('PENDING', 'DONE')", name="ck_erasure_receipts_status"),
    )
    op.create_index("ix_erasure_receipts_client", "erasure_receipts", ["client_id", "requested_at"])
    op.create_table(
        "erasure_tombstones",
        sa.Column("client_id", sa.String(200), primary_key=True),
        sa.Column("form_hash", sa.String(64), primary_key=True),
        sa.Column("words", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=_now()),
    )


def downgrade() -> None:
    op.drop_table("erasure_tombstones")
    op.drop_index("ix_erasure_receipts_client", table_name="erasure_receipts")
    op.drop_table("erasure_receipts")

"""Jobs that wait for their model: ``ingestion_jobs.waiting_for_model_since`` keeps when a
job's model first failed to answer, so the job waits visibly (stage ``WAITING_FOR_MODEL``)
and ends FAILED after KENNING_MODEL_WAIT_HOURS instead of retrying for ever. Existing jobs
have not waited (null).

Revision ID: 0029
Revises: 0028
Create Date: 2026-12-07 21:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0029"
down_revision: str | None = "0028"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "ingestion_jobs",
        sa.Column("waiting_for_model_since", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    op.drop_column("ingestion_jobs", "waiting_for_model_since")

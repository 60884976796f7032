"""Which job last wrote each source (``sources.job_id``), so a crawl is purged as one unit;
and the indexes ``sources`` pages by URN with.

A crawl stores many sources (``web:<url>``, one per page) from one job, and a re-crawl of the
same spec stores only the pages that changed. ``purgeCrawl`` must find every page the crawl
brought in, whichever of its runs stored it: each source remembers the job whose write stored
it last, and the crawl is the jobs of one identity (the spec at one scope).

The column is set by a row trigger from the transaction-local setting ``kenning.job_id``,
which a job's held write (``kenning.storage.extraction.held_store``) sets before its work:
no write path has to pass the id along, and a write outside a job (a synchronous ingest of
the same URN) clears it, as that write is what the source now holds. Only a write of the
source (an insert, or an update that moves ``updated_at``, as every ingest's upsert does)
sets it: an erasure clearing ``main_node_key`` leaves it as it was.

Revision ID: 0030
Revises: 0029
Create Date: 2026-12-07 21:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0030"
down_revision: str | None = "0029"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("sources", sa.Column("job_id", sa.String(length=64), nullable=True))
    op.create_index(
        "ix_sources_job",
        "sources",
        ["client_id", "job_id"],
        postgresql_where=sa.text("job_id IS NOT NULL"),
    )
    # ``sources`` pages by URN: a client's reader walks its client's rows and the global ones
    # in URN order, a global reader every row, each stopping at the page's end.
    op.create_index(
        "ix_sources_client_urn", "sources", ["client_id", "source_urn", "project_id", "group_id"]
    )
    op.create_index(
        "ix_sources_urn", "sources", ["source_urn", "client_id", "project_id", "group_id"]
    )
    op.execute(
        """
        CREATE FUNCTION sources_job_id() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' OR NEW.updated_at IS DISTINCT FROM OLD.updated_at THEN
                NEW.job_id := nullif(current_setting('kenning.job_id', true), '');
            END IF;
            RETURN NEW;
        END $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER sources_job_id BEFORE INSERT OR UPDATE ON sources
            FOR EACH ROW EXECUTE FUNCTION sources_job_id()
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS sources_job_id ON sources")
    op.execute("DROP FUNCTION IF EXISTS sources_job_id()")
    op.drop_index("ix_sources_urn", table_name="sources")
    op.drop_index("ix_sources_client_urn", table_name="sources")
    op.drop_index("ix_sources_job", table_name="sources")
    op.drop_column("sources", "job_id")

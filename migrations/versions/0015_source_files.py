"""Stored originals of uploaded files (``source_files``), their bytes as large objects.

``ingestFile`` keeps the file it was given so that whoever may read its chunks can download
it. The bytes are a PostgreSQL large object rather than a file in a configured directory:

- transactional with the chunks: the object is written (``lo_from_bytea``) in the same
  database as everything derived from it, and a rolled-back upload leaves no orphan file;
- backed up with the database: ``pg_dump`` carries large objects, so a restore has the
  originals its chunks came from, with no second store to copy and keep in step;
- scoped like every row: the scope columns decide who may read it, by the same rules as
  chunks, and no path on disk can be guessed or reached around them.

A large object is read in slices (``lo_get(oid, offset, length)``), so a 100 MB file is
streamed without holding it whole. Deleting a row unlinks its object (the row trigger
``source_files_unlink``), so no delete path can leak one.

Purging a source deletes its originals: a deferred constraint trigger on ``sources``
(``source_files_purge``) runs at commit, so a re-ingest, which removes and writes the
source row again in one transaction, keeps them; a purge, which leaves no row, does not.

Once its job has indexed a file (``indexed_at``), the originals of the same source and scope
indexed before it are superseded and deleted; ones still queued stay. A file whose text held
a credential is not kept: its object is unlinked and its row stays as a tombstone with
``content_oid`` NULL and ``not_kept`` saying why, so a download can answer why it is gone.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "source_files",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("client_id", sa.String(length=200), nullable=False),
        sa.Column("project_id", sa.String(length=200), server_default="", nullable=False),
        sa.Column("group_id", sa.String(length=200), server_default="", nullable=False),
        sa.Column("source_urn", sa.String(length=2048), nullable=False),
        sa.Column("filename", sa.String(length=512), nullable=False),
        sa.Column("media_type", sa.String(length=200), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("content_oid", postgresql.OID(), nullable=True),
        sa.Column("not_kept", sa.String(length=40), nullable=True),
        sa.Column("indexed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint(
            "client_id",
            "project_id",
            "group_id",
            "source_urn",
            "sha256",
            name="uq_source_files_content",
        ),
    )
    op.execute(
        """
        CREATE FUNCTION source_files_unlink() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM lo_unlink(OLD.content_oid)
            WHERE EXISTS (SELECT 1 FROM pg_largeobject_metadata WHERE oid = OLD.content_oid);
            RETURN OLD;
        END $$
        """
    )
    op.execute(
        """
        CREATE TRIGGER source_files_unlink AFTER DELETE ON source_files
            FOR EACH ROW EXECUTE FUNCTION source_files_unlink();
        """
    )

    op.execute(
        """
        CREATE FUNCTION source_files_purge() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM source_files f
            WHERE f.client_id = OLD.client_id AND f.project_id = OLD.project_id
              AND f.group_id = OLD.group_id AND f.source_urn = OLD.source_urn
              AND NOT EXISTS (
                SELECT 1 FROM sources s WHERE s.client_id = OLD.client_id
                  AND s.project_id = OLD.project_id AND s.group_id = OLD.group_id
                  AND s.source_urn = OLD.source_urn);
            RETURN NULL;
        END $$
        """
    )
    op.execute(
        """
        CREATE CONSTRAINT TRIGGER source_files_purge AFTER DELETE ON sources
            DEFERRABLE INITIALLY DEFERRED
            FOR EACH ROW EXECUTE FUNCTION source_files_purge()
        """
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS source_files_purge ON sources")
    op.execute("DROP FUNCTION IF EXISTS source_files_purge()")
    # Unlink every object first: dropping the table alone would orphan them.
    op.execute(
        "SELECT lo_unlink(content_oid) FROM source_files WHERE content_oid IN "
        "(SELECT oid FROM pg_largeobject_metadata)"
    )
    op.execute("DROP TRIGGER IF EXISTS source_files_unlink ON source_files")
    op.drop_table("source_files")
    op.execute("DROP FUNCTION IF EXISTS source_files_unlink()")

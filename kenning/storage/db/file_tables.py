"""The ``source_files`` table: the original of each uploaded file (migration 0015).

The bytes live in a PostgreSQL large object (``content_oid``), written with ``lo_from_bytea``
and read in slices with ``lo_get``; a row trigger unlinks the object when its row is
deleted. ``content_oid`` is NULL once a file is not kept (``not_kept`` says why: its text
held credentials); ``indexed_at`` is set when its job has indexed it. Read and written by
``kenning.storage.sources.files.file_store``.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import OID
from sqlmodel import Field, SQLModel


class SourceFileRow(SQLModel, table=True):
    """One stored original: who may read it (scope), what it is, and where its bytes are."""

    __tablename__ = "source_files"
    __table_args__ = (
        # One original per scope, source and content: an upload repeated is the same file.
        sa.UniqueConstraint(
            "client_id",
            "project_id",
            "group_id",
            "source_urn",
            "sha256",
            name="uq_source_files_content",
        ),
        # The file sweep reads only originals not yet indexed (migration 0024).
        sa.Index(
            "ix_source_files_unindexed",
            "created_at",
            postgresql_where=sa.text("indexed_at IS NULL"),
        ),
    )

    id: str = Field(primary_key=True, max_length=36)
    client_id: str = Field(max_length=200)
    project_id: str = Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)
    group_id: str = Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)
    source_urn: str = Field(max_length=2048)
    filename: str = Field(max_length=512)
    media_type: str = Field(max_length=200)
    size: int = Field(sa_type=sa.BigInteger)
    sha256: str = Field(max_length=64)
    content_oid: int | None = Field(default=None, sa_type=OID, nullable=True)
    not_kept: str | None = Field(default=None, max_length=40, nullable=True)
    indexed_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )
    created_at: datetime = Field(
        sa_column=sa.Column(
            sa.DateTime(timezone=True), nullable=False, server_default=sa.text("now()")
        )
    )

"""The erasure's tables (migration 0027): ``erasure_receipts`` (what each erasure removed,
counted per kind, when and by whom; never a key or a name) and ``erasure_tombstones`` (the
salted hash and word count of each erased form, per client, that later writes are checked
against). Read and written by ``kenning.storage.erasure``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import Field, SQLModel


def _at(nullable: bool) -> Any:
    default = None if nullable else sa.text("now()")
    column = sa.Column(sa.DateTime(timezone=True), nullable=nullable, server_default=default)
    return Field(default=None, sa_column=column)


class ErasureReceiptRow(SQLModel, table=True):
    """One erasure: PENDING until its job's transaction commits, then DONE with its counts."""

    __tablename__ = "erasure_receipts"
    __table_args__ = (
        sa.Index("ix_erasure_receipts_client", "client_id", "requested_at"),
        sa.CheckConstraint("mode IN ('DELETE', 'REDACT')", name="ck_erasure_receipts_mode"),
        sa.CheckConstraint("status IN ('PENDING', 'DONE')", name="ck_erasure_receipts_status"),
    )

    id: str = Field(primary_key=True, max_length=36)
    client_id: str = Field(max_length=200)
    mode: str = Field(max_length=10)
    status: str = Field(max_length=10)
    requested_by: str = Field(max_length=100)
    requested_at: datetime | None = _at(nullable=False)
    finished_at: datetime | None = _at(nullable=True)
    job_id: str | None = Field(default=None, max_length=36)
    counts: dict[str, Any] = Field(
        default_factory=dict,
        sa_column=sa.Column(JSONB(), nullable=False, server_default=sa.text("'{}'::jsonb")),
    )


class ErasureTombstoneRow(SQLModel, table=True):
    """One erased form of a client: the hash of its words and how many words it has."""

    __tablename__ = "erasure_tombstones"

    client_id: str = Field(primary_key=True, max_length=200)
    form_hash: str = Field(primary_key=True, max_length=64)
    words: int
    created_at: datetime | None = _at(nullable=False)

"""Memory that keeps its past: every version of a user-knowledge item and of a procedure,
and the ``changes`` audit trail every update, forget and delete of a memory item writes.

A version's current row is the one with no ``superseded_at``; a forgotten or deleted item's
last version carries ``deleted_at``. ``seq`` orders rows across items (history pages and the
change log page by it, newest first). ``user_key`` ``""`` marks an item shared by every
user of its scope; otherwise it names the one user (a node key such as ``user:alice``) the
item belongs to.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import Field, SQLModel


def _seq() -> Any:
    return Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=True), primary_key=True),
    )


def _timestamp(nullable: bool) -> Any:
    default = None if nullable else sa.text("now()")
    column = sa.Column(sa.DateTime(timezone=True), nullable=nullable, server_default=default)
    return Field(default=None, sa_column=column)


def _text() -> Any:
    return Field(sa_column=sa.Column(sa.Text(), nullable=False))


def _empty(length: int) -> Any:
    return Field(default="", sa_column_kwargs={"server_default": ""}, max_length=length)


class KnowledgeVersionRow(SQLModel, table=True):
    """One version of one user-knowledge item (a source of kind ``user_knowledge_*``)."""

    __tablename__ = "knowledge_versions"
    __table_args__ = (
        sa.UniqueConstraint(
            "client_id",
            "project_id",
            "group_id",
            "source_urn",
            "version",
            name="uq_knowledge_versions_version",
        ),
        sa.Index(
            "uq_knowledge_versions_current",
            "client_id",
            "project_id",
            "group_id",
            "source_urn",
            unique=True,
            postgresql_where=sa.text("superseded_at IS NULL"),
        ),
        sa.Index("ix_knowledge_versions_item", "client_id", "source_urn", "seq"),
        sa.CheckConstraint("version > 0", name="ck_knowledge_versions_version"),
    )

    seq: int | None = _seq()
    client_id: str = Field(max_length=200)
    project_id: str = _empty(200)
    group_id: str = _empty(200)
    source_urn: str = Field(max_length=200)
    category: str = Field(max_length=20)
    user_key: str = _empty(300)
    version: int
    subject: str = Field(max_length=200)
    content: str = _text()
    agent_id: str | None = Field(default=None, max_length=200)
    created_by: str = Field(max_length=100)
    created_at: datetime | None = _timestamp(nullable=False)
    superseded_at: datetime | None = _timestamp(nullable=True)
    deleted_at: datetime | None = _timestamp(nullable=True)


class ProcedureVersionRow(SQLModel, table=True):
    """One version of one procedure; the ``procedures`` row holds the current one (a deleted
    procedure has no ``procedures`` row left, only its versions)."""

    __tablename__ = "procedure_versions"
    __table_args__ = (
        sa.UniqueConstraint("procedure_id", "version", name="uq_procedure_versions_version"),
        sa.Index("ix_procedure_versions_item", "client_id", "procedure_id", "seq"),
        sa.CheckConstraint("version > 0", name="ck_procedure_versions_version"),
    )

    seq: int | None = _seq()
    procedure_id: str = Field(max_length=36)
    client_id: str = Field(max_length=200)
    version: int
    trigger_pattern: str = Field(max_length=500)
    description: str = _text()
    steps: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=sa.Column(JSONB(), nullable=False)
    )
    source: str = Field(max_length=20)
    user_key: str = _empty(300)
    agent_id: str | None = Field(default=None, max_length=200)
    created_by: str = Field(max_length=100)
    created_at: datetime | None = _timestamp(nullable=False)
    superseded_at: datetime | None = _timestamp(nullable=True)
    deleted_at: datetime | None = _timestamp(nullable=True)


class ChangeRow(SQLModel, table=True):
    """One change of one memory item: who, when, what (old and new as JSON) and why.

    The scope and ``user_key`` are the item's, so the change is read exactly as the item is.
    """

    __tablename__ = "changes"
    __table_args__ = (
        sa.Index("ix_changes_client", "client_id", "seq"),
        sa.Index("ix_changes_item", "client_id", "item_id", "seq"),
        sa.Index("ix_changes_key", "client_id", "item_key", "seq"),
    )

    seq: int | None = _seq()
    client_id: str = Field(max_length=200)
    project_id: str = _empty(200)
    group_id: str = _empty(200)
    user_key: str = _empty(300)
    item_kind: str = Field(max_length=40)
    item_id: str = Field(max_length=2048)
    item_key: str | None = Field(default=None, max_length=2048)
    action: str = Field(max_length=20)
    old: dict[str, Any] | None = Field(default=None, sa_column=sa.Column(JSONB(), nullable=True))
    new: dict[str, Any] | None = Field(default=None, sa_column=sa.Column(JSONB(), nullable=True))
    reason: str | None = Field(default=None, sa_column=sa.Column(sa.Text(), nullable=True))
    changed_by: str = Field(max_length=100)
    changed_at: datetime | None = _timestamp(nullable=False)

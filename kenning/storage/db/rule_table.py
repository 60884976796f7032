"""The ``hard_rules`` table: a client's mandatory rules, one row per version.

A rule key's current version is its row with no ``superseded_at``; it is active while it has
no ``deleted_at`` either. Rows are isolated by client in the database itself: row-level
security lets ``RULES_ROLE`` (a NOLOGIN role the storage switches to for every statement)
see only the rows of the client named by the ``CLIENT_SETTING`` transaction setting.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

# Cluster-wide: every database migrated to 0009 shares it (see that migration).
RULES_ROLE: Final = "kenning_rules"
CLIENT_SETTING: Final = "kenning.client_id"


def _timestamp(nullable: bool) -> Any:
    default = None if nullable else sa.text("now()")
    column = sa.Column(sa.DateTime(timezone=True), nullable=nullable, server_default=default)
    return Field(default=None, sa_column=column)


class HardRuleRow(SQLModel, table=True):
    """One version of one rule of a client (``project_id`` ``""``: client-wide)."""

    __tablename__ = "hard_rules"
    __table_args__ = (
        sa.UniqueConstraint(
            "client_id", "project_id", "rule_key", "version", name="uq_hard_rules_version"
        ),
        # At most one current version per key, whatever the storage does.
        sa.Index(
            "uq_hard_rules_current",
            "client_id",
            "project_id",
            "rule_key",
            unique=True,
            postgresql_where=sa.text("superseded_at IS NULL"),
        ),
        sa.CheckConstraint("client_id <> ''", name="ck_hard_rules_client"),
        sa.CheckConstraint("version > 0", name="ck_hard_rules_version"),
    )

    id: str = Field(primary_key=True, max_length=36)
    client_id: str = Field(max_length=200)
    project_id: str = Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)
    rule_key: str = Field(max_length=200)
    version: int
    rule_type: str = Field(max_length=20)
    content: str = Field(sa_column=sa.Column(sa.Text(), nullable=False))
    description: str = Field(sa_column=sa.Column(sa.Text(), nullable=False))
    created_by: str = Field(max_length=100)
    created_at: datetime | None = _timestamp(nullable=False)
    superseded_at: datetime | None = _timestamp(nullable=True)
    deleted_at: datetime | None = _timestamp(nullable=True)

"""The history of node properties: every value each property of each vertex held.

A row is one value of one property of the vertex of ``node_key`` at one scope (the scope
columns are the vertex's, so a version is read exactly as its vertex is). It is current while
``ended_at`` is null; a write that replaces or removes the value ends it (``ended_by``: the
source URN or key id of that write; null when the vertex itself was deleted). ``seq`` orders
the rows (pages of ``nodeHistory`` go by it, newest first). ``source`` is the URN of the
source that stated the value, ``changed_by`` the key that set it with ``updateNode``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import JSONB
from sqlmodel import Field, SQLModel


def _at(nullable: bool, *, now: bool = False) -> Any:
    default = sa.text("now()") if now else None
    column = sa.Column(sa.DateTime(timezone=True), nullable=nullable, server_default=default)
    return Field(default=None, sa_column=column)


def _empty() -> Any:
    return Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)


class NodePropertyVersionRow(SQLModel, table=True):
    """One value one property of one vertex held."""

    __tablename__ = "node_property_versions"
    __table_args__ = (
        sa.Index("ix_node_property_versions_key", "node_key", "seq"),
        sa.Index(
            "ix_node_property_versions_current",
            "client_id",
            "project_id",
            "group_id",
            "node_key",
            "name",
            postgresql_where=sa.text("ended_at IS NULL"),
        ),
    )

    seq: int | None = Field(
        default=None,
        sa_column=sa.Column(sa.BigInteger, sa.Identity(always=True), primary_key=True),
    )
    client_id: str = Field(max_length=200)
    project_id: str = _empty()
    group_id: str = _empty()
    node_key: str = Field(max_length=512)
    # Text: an ingested property may have a longer name than updateNode allows.
    name: str = Field(sa_column=sa.Column(sa.Text(), nullable=False))
    value: Any = Field(sa_column=sa.Column(JSONB(), nullable=False))
    source: str | None = Field(default=None, max_length=2048)
    changed_by: str | None = Field(default=None, max_length=100)
    observed_at: datetime | None = _at(nullable=True)
    recorded_at: datetime | None = _at(nullable=False, now=True)
    ended_at: datetime | None = _at(nullable=True)
    ended_by: str | None = Field(default=None, max_length=2048)

"""Tables of facts over time: which relations hold one value at a time, every interval an
edge was valid, the explicit endings (retractions, superseded sources, contradictions)
the timeline is computed from, and the chunks that no longer hold.

An edge in the graph carries its latest interval as properties (``validFrom``, ``validTo``,
``recordedAt``, ``endedAt``, ``endedReason``, ``endedBy``); ``edge_intervals`` keeps every
interval of the (from, relation) groups whose timeline was computed, oldest first, for
``edgeHistory`` and ``asOf`` reads. The timeline itself is a pure function of the edge's
evidence (each chunk's ``observed_at``, then ``created_at``) and ``edge_endings``
(``kenning.domain.ingestion.validity``), so recomputing it is always safe.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

REASONS = ("SUPERSEDED", "RETRACTED", "CONTRADICTED", "ERASED")


def _at(nullable: bool, *, now: bool = False) -> Any:
    default = sa.text("now()") if now else None
    column = sa.Column(sa.DateTime(timezone=True), nullable=nullable, server_default=default)
    return Field(default=None, sa_column=column)


def _scope() -> Any:
    return Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)


def _reason_check(table: str, column: str) -> sa.CheckConstraint:
    allowed = ", ".join(f"'{r}'" for r in REASONS)
    return sa.CheckConstraint(f"{column} IN ({allowed})", name=f"ck_{table}_reason")


class RelationRow(SQLModel, table=True):
    """A client's declaration of one relation (edge type): ``ONE`` target at a time, or
    ``MANY`` (what an undeclared relation is)."""

    __tablename__ = "relations"
    __table_args__ = (
        sa.CheckConstraint("cardinality IN ('ONE', 'MANY')", name="ck_relations_cardinality"),
    )

    client_id: str = Field(primary_key=True, max_length=200)
    edge_type: str = Field(primary_key=True, max_length=200)
    cardinality: str = Field(max_length=4)
    description: str = Field(sa_column=sa.Column(sa.Text(), nullable=False, server_default=""))
    defined_by: str = Field(max_length=100)
    defined_at: datetime | None = _at(nullable=False, now=True)


class EdgeIntervalRow(SQLModel, table=True):
    """One interval during which (from, relation, to) held, at one scope."""

    __tablename__ = "edge_intervals"
    __table_args__ = (
        sa.Index(
            "ix_edge_intervals_group",
            "client_id",
            "project_id",
            "group_id",
            "from_key",
            "edge_type",
        ),
        sa.CheckConstraint(
            "valid_to IS NULL OR valid_to >= valid_from", name="ck_edge_intervals_order"
        ),
        sa.CheckConstraint(
            "ended_reason IS NULL OR ended_reason IN "
            "('SUPERSEDED', 'RETRACTED', 'CONTRADICTED', 'ERASED')",
            name="ck_edge_intervals_reason",
        ),
    )

    id: int | None = Field(default=None, primary_key=True)
    client_id: str = _scope()
    project_id: str = _scope()
    group_id: str = _scope()
    from_key: str = Field(max_length=512)
    edge_type: str = Field(max_length=200)
    to_key: str = Field(max_length=512)
    valid_from: datetime | None = _at(nullable=False)
    valid_to: datetime | None = _at(nullable=True)
    recorded_at: datetime | None = _at(nullable=False)
    ended_at: datetime | None = _at(nullable=True)
    ended_reason: str | None = Field(default=None, max_length=20)
    ended_by: str | None = Field(default=None, max_length=2048)


class EdgeEndingRow(SQLModel, table=True):
    """An explicit end of (from, relation, to) at a valid time: a retraction, a source the
    writer said is superseded, a contradiction a model found."""

    __tablename__ = "edge_endings"
    __table_args__ = (
        sa.Index(
            "ix_edge_endings_group",
            "client_id",
            "project_id",
            "group_id",
            "from_key",
            "edge_type",
        ),
        _reason_check("edge_endings", "reason"),
    )

    id: int | None = Field(default=None, primary_key=True)
    client_id: str = _scope()
    project_id: str = _scope()
    group_id: str = _scope()
    from_key: str = Field(max_length=512)
    edge_type: str = Field(max_length=200)
    to_key: str = Field(max_length=512)
    valid_at: datetime | None = _at(nullable=False)
    reason: str = Field(max_length=20)
    ended_by: str = Field(max_length=2048)
    recorded_at: datetime | None = _at(nullable=False, now=True)


class ChunkMarkRow(SQLModel, table=True):
    """A chunk that no longer holds: every edge it is evidence for ended (``kind``
    ``edges``), or a writer said a newer source replaces its source (``source``). Kept
    beside ``chunks`` so marking one never rewrites a chunk row (its vector index and the
    side tables' triggers); reads attach the marks of what they return."""

    __tablename__ = "chunk_marks"
    __table_args__ = (
        sa.CheckConstraint("kind IN ('edges', 'source')", name="ck_chunk_marks_kind"),
    )

    client_id: str = Field(primary_key=True, max_length=200)
    chunk_id: str = Field(primary_key=True, max_length=64)
    superseded_at: datetime | None = _at(nullable=False)
    superseded_by: str = Field(max_length=2048)
    kind: str = Field(max_length=10)

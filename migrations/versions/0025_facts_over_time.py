"""Facts over time: ``chunks.observed_at`` (when the source says it was true), the chunks
that no longer hold (``chunk_marks``), the ``relations`` a client declares (ONE or MANY),
every interval of an edge (``edge_intervals``) and the explicit endings its timeline is
computed from (``edge_endings``).

Existing edges get ``validFrom`` and ``recordedAt`` = the time of their first evidence (its
chunk's creation); nothing else changes for a client that declares no ONE relation.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-07 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from kenning.settings import Settings

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_REASONS = "('SUPERSEDED', 'RETRACTED', 'CONTRADICTED', 'ERASED')"
# Fixed width, UTC: the properties compare as text in the order of time.
_ISO = """to_char({} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')"""


def _graph() -> str:
    config = op.get_context().config
    assert config is not None, "run migrations through Alembic's config"
    settings = config.attributes["settings"]
    assert isinstance(settings, Settings)
    return settings.graph_name  # passed the Settings identifier whitelist


def _scope() -> list[sa.Column[str]]:
    return [
        sa.Column(name, sa.String(200), nullable=False, server_default="")
        for name in ("client_id", "project_id", "group_id")
    ]


def upgrade() -> None:
    op.add_column("chunks", sa.Column("observed_at", sa.DateTime(timezone=True)))
    op.create_table(
        "chunk_marks",
        sa.Column("client_id", sa.String(200), primary_key=True),
        sa.Column("chunk_id", sa.String(64), primary_key=True),
        sa.Column("superseded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("superseded_by", sa.String(2048), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.CheckConstraint("kind IN ('edges', 'source')", name="ck_chunk_marks_kind"),
    )
    op.create_table(
        "relations",
        sa.Column("client_id", sa.String(200), primary_key=True),
        sa.Column("edge_type", sa.String(200), primary_key=True),
        sa.Column("cardinality", sa.String(4), nullable=False),
        sa.Column("description", sa.Text(), nullable=False, server_default=""),
        sa.Column("defined_by", sa.String(100), nullable=False),
        sa.Column(
            "defined_at",
            sa.DateTime(timezone=True),
            nullable=False,
            server_default=sa.text("now()"),
        ),
        sa.CheckConstraint("cardinality IN ('ONE', 'MANY')", name="ck_relations_cardinality"),
    )
    op.create_table(
        "edge_intervals",
        sa.Column("id", sa.Integer(), primary_key=True),
        *_scope(),
        sa.Column("from_key", sa.String(512), nullable=False),
        sa.Column("edge_type", sa.String(200), nullable=False),
        sa.Column("to_key", sa.String(512), nullable=False),
        sa.Column("valid_from", sa.DateTime(timezone=True), nullable=False),
        sa.Column("valid_to", sa.DateTime(timezone=True)),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True)),
        sa.Column("ended_reason", sa.String(20)),
        sa.Column("ended_by", sa.String(2048)),
        sa.CheckConstraint(
            "valid_to IS NULL OR valid_to >= valid_from", name="ck_edge_intervals_order"
        ),
        sa.CheckConstraint(
            f"ended_reason IS NULL OR ended_reason IN {_REASONS}", name="ck_edge_intervals_reason"
        ),
    )
    op.create_index(
        "ix_edge_intervals_group",
        "edge_intervals",
        ["client_id", "project_id", "group_id", "from_key", "edge_type"],
    )
    op.create_table(
        "edge_endings",
        sa.Column("id", sa.Integer(), primary_key=True),
        *_scope(),
        sa.Column("from_key", sa.String(512), nullable=False),
        sa.Column("edge_type", sa.String(200), nullable=False),
        sa.Column("to_key", sa.String(512), nullable=False),
        sa.Column("valid_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("reason", sa.String(20), nullable=False),
        sa.Column("ended_by", sa.String(2048), nullable=False),
        sa.Column(
            "recorded_at",
            sa.DateTime(timezone=True),
            nullable=False,
            server_default=sa.text("now()"),
        ),
        sa.CheckConstraint(f"reason IN {_REASONS}", name="ck_edge_endings_reason"),
    )
    op.create_index(
        "ix_edge_endings_group",
        "edge_endings",
        ["client_id", "project_id", "group_id", "from_key", "edge_type"],
    )
    graph = _graph()
    first = _ISO.format("f.at")
    # Every existing edge: valid from its first evidence's time, recorded then too.
    op.execute(f"""
        UPDATE {graph}."REL" r
        SET properties = ((ag_catalog.agtype_out(r.properties)::text::jsonb
                           || jsonb_build_object('validFrom', {first}, 'recordedAt', {first}))
                          ::text::ag_catalog.agtype)
        FROM (
            SELECT r2.id, min(c.created_at) AS at
            FROM {graph}."REL" r2
            CROSS JOIN LATERAL jsonb_array_elements_text(
                ag_catalog.agtype_out(r2.properties)::text::jsonb -> 'evidenceChunkIds') AS e(id)
            JOIN chunks c ON c.id = e.id
            GROUP BY r2.id
        ) f
        WHERE r.id OPERATOR(ag_catalog.=) f.id
    """)


def downgrade() -> None:
    graph = _graph()
    strip = " - ".join(
        f"'{name}'" for name in
        ("validFrom", "validTo", "recordedAt", "endedAt", "endedReason", "endedBy")
    )  # fmt: skip
    op.execute(f"""
        UPDATE {graph}."REL" r
        SET properties = ((ag_catalog.agtype_out(r.properties)::text::jsonb - {strip})
                          ::text::ag_catalog.agtype)
    """)
    op.drop_index("ix_edge_endings_group", table_name="edge_endings")
    op.drop_table("edge_endings")
    op.drop_index("ix_edge_intervals_group", table_name="edge_intervals")
    op.drop_table("edge_intervals")
    op.drop_table("relations")
    op.drop_table("chunk_marks")
    op.drop_column("chunks", "observed_at")

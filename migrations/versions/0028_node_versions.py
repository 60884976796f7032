"""Node property history: ``node_property_versions`` keeps every value each property of each
vertex held, with the source that stated it, when it held and when it was recorded.

Every property of every existing vertex becomes the first, current version of its history,
recorded now by ``migration-0028`` (no source, no observed time), so the value before a
node's first correction is always there.

Revision ID: 0028
Revises: 0027
Create Date: 2026-12-10 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

from kenning.settings import Settings

revision: str = "0028"
down_revision: str | None = "0027"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BY = "migration-0028"
_RESERVED = "('key', 'type', 'client', 'project', 'group')"


def _graph() -> str:
    config = op.get_context().config
    assert config is not None, "run migrations through Alembic's config"
    settings = config.attributes["settings"]
    assert isinstance(settings, Settings)
    return settings.graph_name  # passed the Settings identifier whitelist


def _scope() -> list[sa.Column[str]]:
    return [
        sa.Column("client_id", sa.String(200), nullable=False),
        sa.Column("project_id", sa.String(200), nullable=False, server_default=""),
        sa.Column("group_id", sa.String(200), nullable=False, server_default=""),
    ]


def upgrade() -> None:
    op.create_table(
        "node_property_versions",
        sa.Column("seq", sa.BigInteger(), sa.Identity(always=True), primary_key=True),
        *_scope(),
        sa.Column("node_key", sa.String(512), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("value", JSONB(), nullable=False),
        sa.Column("source", sa.String(2048), nullable=True),
        sa.Column("changed_by", sa.String(100), nullable=True),
        sa.Column("observed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "recorded_at",
            sa.DateTime(timezone=True),
            nullable=False,
            server_default=sa.text("now()"),
        ),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_by", sa.String(2048), nullable=True),
    )
    op.create_index("ix_node_property_versions_key", "node_property_versions", ["node_key", "seq"])
    op.create_index(
        "ix_node_property_versions_current",
        "node_property_versions",
        ["client_id", "project_id", "group_id", "node_key", "name"],
        postgresql_where=sa.text("ended_at IS NULL"),
    )
    graph = _graph()
    op.execute(f"""
        INSERT INTO node_property_versions (client_id, project_id, group_id, node_key, name,
            value, changed_by)
        SELECT p ->> 'client', p ->> 'project', p ->> 'group', p ->> 'key', e.key, e.value,
               '{_BY}'
        FROM (SELECT ag_catalog.agtype_out(v.properties)::text::jsonb AS p
              FROM {graph}."Entity" v) v
        CROSS JOIN LATERAL jsonb_each(v.p) AS e(key, value)
        WHERE e.key NOT IN {_RESERVED}
        ORDER BY 1, 2, 3, 4, 5
    """)


def downgrade() -> None:
    op.drop_index("ix_node_property_versions_current", table_name="node_property_versions")
    op.drop_index("ix_node_property_versions_key", table_name="node_property_versions")
    op.drop_table("node_property_versions")

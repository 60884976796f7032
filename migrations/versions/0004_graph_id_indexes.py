"""Graph reads: btree indexes on the ``id`` of the vertex and edge label tables.

AGE 1.5 creates label tables without any index on ``id``. Every traversal step joins an
edge's ``start_id``/``end_id`` back to its vertex (for the key and the scope check) and a
path is fetched by edge ids, so without these each join scans the whole label table.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-21 14:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from kenning.settings import Settings

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _graph() -> str:
    config = op.get_context().config
    assert config is not None, "run migrations through Alembic's config"
    settings = config.attributes["settings"]
    assert isinstance(settings, Settings)
    # Passed the Settings identifier whitelist.
    return settings.graph_name


def upgrade() -> None:
    graph = _graph()
    op.execute(f'CREATE INDEX ix_entity_id ON {graph}."Entity" (id)')
    op.execute(f'CREATE INDEX ix_rel_id ON {graph}."REL" (id)')


def downgrade() -> None:
    graph = _graph()
    op.execute(f"DROP INDEX IF EXISTS {graph}.ix_rel_id")
    op.execute(f"DROP INDEX IF EXISTS {graph}.ix_entity_id")

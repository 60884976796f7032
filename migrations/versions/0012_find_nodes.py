"""findNodes: pg_trgm and trigram GIN indexes on the vertices' names and descriptions.

``findNodes`` matches what a person types against a vertex's key id part, ``name`` and
``label`` (one text, ``ix_entity_find_names``) and its ``description``
(``ix_entity_find_text``). AGE's label tables hold properties as agtype, so both are
expression indexes spelled exactly as ``kenning/storage/graph/find_sql.py`` queries them.
Each leads with the vertex's client (``btree_gin``), so a client's reader rechecks only its
own client's and global vertices, not every tenant's (a tenth of them on the benchmark).
The graph schema is outside Alembic's comparison (env.py puts only ``public`` on the path),
so ``alembic check`` stays clean.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25 21:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from kenning.settings import Settings

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _graph() -> str:
    config = op.get_context().config
    assert config is not None, "run migrations through Alembic's config"
    settings = config.attributes["settings"]
    assert isinstance(settings, Settings)
    # Passed the Settings identifier whitelist.
    return settings.graph_name


def _prop(name: str) -> str:
    return f"(properties OPERATOR(ag_catalog.->>) '{name}'::text)"


def upgrade() -> None:
    graph = _graph()
    op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public")
    op.execute("CREATE EXTENSION IF NOT EXISTS btree_gin WITH SCHEMA public")
    # COALESCE, though every vertex has a client: ix_entity_scope_key cannot serve this
    # spelling, so the planner never trades the trigram scan for one over a whole client.
    client = f"COALESCE({_prop('client')}, ''::text)"
    names = (
        f"((split_part({_prop('key')}, ':'::text, 2) || ' '::text) "
        f"|| COALESCE({_prop('name')}, ''::text) || ' '::text "
        f"|| COALESCE({_prop('label')}, ''::text))"
    )
    op.execute(
        f'CREATE INDEX ix_entity_find_names ON {graph}."Entity" '
        f"USING gin ({client}, {names} public.gin_trgm_ops)"
    )
    op.execute(
        f'CREATE INDEX ix_entity_find_text ON {graph}."Entity" '
        f"USING gin ({client}, {_prop('description')} public.gin_trgm_ops)"
    )


def downgrade() -> None:
    graph = _graph()
    op.execute(f"DROP INDEX IF EXISTS {graph}.ix_entity_find_text")
    op.execute(f"DROP INDEX IF EXISTS {graph}.ix_entity_find_names")
    op.execute("DROP EXTENSION IF EXISTS btree_gin")
    op.execute("DROP EXTENSION IF EXISTS pg_trgm")

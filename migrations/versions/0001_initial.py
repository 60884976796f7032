"""Initial schema: extensions, chunks, aliases, jobs, connections, meta and the AGE graph.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR

from kenning.settings import Settings

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _settings() -> Settings:
    config = op.get_context().config
    assert config is not None, "run migrations through Alembic's config"
    settings = config.attributes["settings"]
    assert isinstance(settings, Settings)
    return settings


def _now() -> sa.TextClause:
    return sa.text("now()")


def _scope_columns() -> list[sa.Column[str]]:
    return [
        sa.Column(name, sa.String(200), nullable=False, server_default="")
        for name in ("client_id", "project_id", "group_id")
    ]


def _stamps(*names: str) -> list[sa.Column[object]]:
    return [
        sa.Column(name, sa.DateTime(timezone=True), nullable=False, server_default=_now())
        for name in names
    ]


def _text_array(name: str) -> sa.Column[object]:
    return sa.Column(name, ARRAY(sa.Text()), nullable=False, server_default=sa.text("'{}'::text[]"))


def upgrade() -> None:
    settings = _settings()
    op.execute("CREATE EXTENSION IF NOT EXISTS vector")
    op.execute("CREATE EXTENSION IF NOT EXISTS age")
    _create_chunks(settings.embedding_dim)
    _create_aliases()
    _create_jobs()
    _create_connections()
    _create_meta(settings)
    _create_graph(settings.graph_name)


def _create_chunks(dim: int) -> None:
    op.create_table(
        "chunks",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("source_urn", sa.String(2048), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(200), nullable=False),
        *_scope_columns(),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("embedding", Vector(dim), nullable=False),
        sa.Column(
            "content_tsv",
            TSVECTOR(),
            sa.Computed("to_tsvector('english', content)", persisted=True),
        ),
        _text_array("graph_refs"),
        sa.Column("knowledge_type", sa.String(40)),
        sa.Column("info_type", sa.String(200)),
        _text_array("tags"),
        sa.Column("source_kind", sa.String(200)),
        sa.Column("connection_id", sa.String(200)),
        sa.Column("external_id", sa.String(2048)),
        sa.Column("revision", sa.String(200)),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("metadata", JSONB(), nullable=False, server_default=sa.text("'{}'::jsonb")),
        *_stamps("created_at", "updated_at"),
    )
    op.create_index("ix_chunks_scope", "chunks", ["client_id", "project_id", "group_id"])
    op.create_index("ix_chunks_source", "chunks", ["client_id", "source_urn"])
    op.create_index("ix_chunks_connection", "chunks", ["client_id", "connection_id"])
    op.create_index("ix_chunks_kind", "chunks", ["kind"])
    op.create_index("ix_chunks_tsv", "chunks", ["content_tsv"], postgresql_using="gin")
    op.create_index("ix_chunks_graph_refs", "chunks", ["graph_refs"], postgresql_using="gin")
    op.create_index(
        "ix_chunks_embedding_hnsw",
        "chunks",
        ["embedding"],
        postgresql_using="hnsw",
        postgresql_with={"m": 16, "ef_construction": 64},
        postgresql_ops={"embedding": "vector_cosine_ops"},
    )


def _create_aliases() -> None:
    op.create_table(
        "aliases",
        sa.Column("client_id", sa.String(200), primary_key=True),
        sa.Column("alias_key", sa.String(512), primary_key=True),
        sa.Column("canonical_key", sa.String(512), nullable=False),
        sa.Column("area", sa.String(200), nullable=False, server_default=""),
        sa.Column("seen_count", sa.Integer(), nullable=False, server_default="0"),
        *_stamps("last_seen_at", "created_at"),
    )


def _create_jobs() -> None:
    op.create_table(
        "ingestion_jobs",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("idempotency_key", sa.String(2048), nullable=False),
        sa.Column("status", sa.String(40), nullable=False),
        sa.Column("stage", sa.String(40)),
        sa.Column("lane", sa.String(20), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False),
        sa.Column("queue_position", sa.Integer()),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True)),
        sa.Column("lease_owner", sa.String(200)),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True)),
        sa.Column("last_error", sa.Text()),
        *_scope_columns(),
        sa.Column("source_urn", sa.String(2048)),
        sa.Column("connection_id", sa.String(200)),
        sa.Column("payload", JSONB(), nullable=False),
        *_stamps("created_at", "updated_at"),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
    )
    op.create_index(
        "ix_jobs_claim",
        "ingestion_jobs",
        ["priority", "queue_position", "created_at"],
        postgresql_where=sa.text("status = 'QUEUED'"),
    )
    op.create_index("ix_jobs_idempotency", "ingestion_jobs", ["client_id", "idempotency_key"])
    op.create_index("ix_jobs_connection", "ingestion_jobs", ["client_id", "connection_id"])


def _create_connections() -> None:
    op.create_table(
        "connections",
        sa.Column("client_id", sa.String(200), primary_key=True),
        sa.Column("connection_id", sa.String(200), primary_key=True),
        sa.Column("project_id", sa.String(200), nullable=False, server_default=""),
        sa.Column("group_id", sa.String(200), nullable=False, server_default=""),
        sa.Column("authority", sa.String(100), nullable=False),
        sa.Column("label", sa.String(500), nullable=False),
        sa.Column("status", sa.String(40), nullable=False),
        _text_array("allowed_source_kinds"),
        sa.Column("sync_cursors", JSONB(), nullable=False, server_default=sa.text("'{}'::jsonb")),
        sa.Column("revoke_reason", sa.Text()),
        *_stamps("created_at", "updated_at"),
    )


def _create_meta(settings: Settings) -> None:
    meta = op.create_table(
        "kenning_meta",
        sa.Column("key", sa.String(100), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )
    op.bulk_insert(
        meta,
        [
            {"key": "embedding_model", "value": settings.embedding_model},
            {"key": "embedding_dim", "value": str(settings.embedding_dim)},
            {"key": "graph_name", "value": settings.graph_name},
        ],
    )


def _create_graph(graph: str) -> None:
    # `graph` passed the Settings identifier whitelist; AGE takes names as literals.
    op.execute("LOAD 'age'")
    op.execute(f"SELECT ag_catalog.create_graph('{graph}')")
    op.execute(f"SELECT ag_catalog.create_vlabel('{graph}', 'Entity')")
    op.execute(f"SELECT ag_catalog.create_elabel('{graph}', 'REL')")
    prop = "(properties OPERATOR(ag_catalog.->>) '{}'::text)".format
    # AGE 1.5 indexes only `id`: one vertex per (scope, key), one edge per (from, type, to).
    op.execute(
        f'CREATE UNIQUE INDEX ix_entity_scope_key ON {graph}."Entity" '
        f"({prop('client')}, {prop('project')}, {prop('group')}, {prop('key')})"
    )
    op.execute(f'CREATE INDEX ix_entity_key ON {graph}."Entity" ({prop("key")})')
    op.execute(f'CREATE INDEX ix_rel_start ON {graph}."REL" (start_id)')
    op.execute(f'CREATE INDEX ix_rel_end ON {graph}."REL" (end_id)')
    op.execute(
        f'CREATE UNIQUE INDEX ix_rel_triple ON {graph}."REL" (start_id, {prop("edgeType")}, end_id)'
    )


def downgrade() -> None:
    graph = _settings().graph_name
    op.execute("LOAD 'age'")
    op.execute(
        f"SELECT ag_catalog.drop_graph(name, true) FROM ag_catalog.ag_graph WHERE name = '{graph}'"
    )
    for table in ("kenning_meta", "connections", "ingestion_jobs", "aliases", "chunks"):
        op.drop_table(table)
    op.execute("DROP EXTENSION IF EXISTS age")
    op.execute("DROP EXTENSION IF EXISTS vector")

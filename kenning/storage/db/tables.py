"""Table declarations (SQLModel); Alembic autogenerates migrations from this metadata.

Hot paths query these tables through asyncpg directly; the classes exist so the schema
has one declared source of truth that ``alembic check`` compares with the database.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, TSVECTOR
from sqlmodel import Field, SQLModel

# The dimension is a setting applied by the migration; the declaration leaves it open
# (the migration environment compares it with the recorded one).
EMBEDDING = Vector()


def _now() -> sa.TextClause:
    return sa.text("now()")


def _text_array() -> sa.Column[Any]:
    return sa.Column(ARRAY(sa.Text()), nullable=False, server_default=sa.text("'{}'::text[]"))


def _created() -> Any:
    return Field(
        sa_column=sa.Column(sa.DateTime(timezone=True), nullable=False, server_default=_now())
    )


def _scope_field() -> Any:
    return Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)


class ChunkRow(SQLModel, table=True):
    """A searchable piece of a source, with embedding and full-text vector; hash-partitioned
    by client (migration 0016), so its key holds the client."""

    __tablename__ = "chunks"
    __table_args__ = (
        sa.PrimaryKeyConstraint("client_id", "id"),
        sa.Index("ix_chunks_id", "id"),
        sa.Index("ix_chunks_scope", "client_id", "project_id", "group_id"),
        sa.Index("ix_chunks_source", "client_id", "source_urn"),
        sa.Index("ix_chunks_connection", "client_id", "connection_id"),
        sa.Index("ix_chunks_kind", "kind"),
        sa.Index("ix_chunks_graph_refs", "graph_refs", postgresql_using="gin"),
        sa.Index(
            "ix_chunks_embedding_hnsw",
            "embedding",
            postgresql_using="hnsw",
            postgresql_with={"m": 16, "ef_construction": 64},
            postgresql_ops={"embedding": "vector_cosine_ops"},
        ),
        {"postgresql_partition_by": "HASH (client_id)"},
    )

    id: str = Field(max_length=64)
    source_urn: str = Field(max_length=2048)
    ordinal: int
    kind: str = Field(max_length=200)
    client_id: str = _scope_field()
    project_id: str = _scope_field()
    group_id: str = _scope_field()
    content: str = Field(sa_column=sa.Column(sa.Text(), nullable=False))
    embedding: list[float] = Field(sa_column=sa.Column(EMBEDDING, nullable=False))
    content_tsv: str | None = Field(
        default=None,
        sa_column=sa.Column(
            TSVECTOR(), sa.Computed("to_tsvector('english', content)", persisted=True)
        ),
    )
    graph_refs: list[str] = Field(default_factory=list, sa_column=_text_array())
    knowledge_type: str | None = Field(default=None, max_length=40)
    info_type: str | None = Field(default=None, max_length=200)
    tags: list[str] = Field(default_factory=list, sa_column=_text_array())
    source_kind: str | None = Field(default=None, max_length=200)
    connection_id: str | None = Field(default=None, max_length=200)
    external_id: str | None = Field(default=None, max_length=2048)
    revision: str | None = Field(default=None, max_length=200)
    content_hash: str = Field(max_length=64)
    metadata_: dict[str, Any] = Field(
        default_factory=dict,
        sa_column=sa.Column(
            "metadata", JSONB(), nullable=False, server_default=sa.text("'{}'::jsonb")
        ),
    )
    created_at: datetime = _created()
    updated_at: datetime = _created()
    # When the source says this was true (NULL: when it was recorded, ``created_at``).
    observed_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True), nullable=True)
    )


class AliasRow(SQLModel, table=True):
    """Per client: an alias key that resolves to a canonical node key."""

    __tablename__ = "aliases"

    client_id: str = Field(primary_key=True, max_length=200)
    alias_key: str = Field(primary_key=True, max_length=512)
    canonical_key: str = Field(max_length=512)
    area: str = Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)
    seen_count: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    last_seen_at: datetime = _created()
    created_at: datetime = _created()


class ConnectionRow(SQLModel, table=True):
    """A registered source connection (a mailbox, a drive, a git remote, ...)."""

    __tablename__ = "connections"

    client_id: str = Field(primary_key=True, max_length=200)
    connection_id: str = Field(primary_key=True, max_length=200)
    project_id: str = _scope_field()
    group_id: str = _scope_field()
    authority: str = Field(max_length=100)
    label: str = Field(max_length=500)
    status: str = Field(max_length=40)
    allowed_source_kinds: list[str] = Field(default_factory=list, sa_column=_text_array())
    sync_cursors: dict[str, Any] = Field(
        default_factory=dict,
        sa_column=sa.Column(JSONB(), nullable=False, server_default=sa.text("'{}'::jsonb")),
    )
    revoke_reason: str | None = Field(default=None, sa_column=sa.Column(sa.Text()))
    root: str | None = Field(default=None, max_length=2048)
    owner: str | None = Field(default=None, max_length=500)
    revoked_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True))
    )
    created_at: datetime = _created()
    updated_at: datetime = _created()


class SourceRow(SQLModel, table=True):
    """One ingested source per scope: the hash that makes re-ingestion idempotent."""

    __tablename__ = "sources"
    __table_args__ = (
        sa.Index("ix_sources_connection", "client_id", "connection_id"),
        # The crawl a purge removes as one unit (migration 0029 sets job_id by trigger).
        sa.Index(
            "ix_sources_job", "client_id", "job_id", postgresql_where=sa.text("job_id IS NOT NULL")
        ),
        # The listing's URN order, per client and for a global reader (migration 0029).
        sa.Index("ix_sources_client_urn", "client_id", "source_urn", "project_id", "group_id"),
        sa.Index("ix_sources_urn", "source_urn", "client_id", "project_id", "group_id"),
    )

    client_id: str = Field(primary_key=True, max_length=200)
    project_id: str = Field(primary_key=True, max_length=200)
    group_id: str = Field(primary_key=True, max_length=200)
    source_urn: str = Field(primary_key=True, max_length=2048)
    kind: str = Field(max_length=200)
    content_hash: str = Field(max_length=64)
    main_node_key: str | None = Field(default=None, max_length=512)
    connection_id: str | None = Field(default=None, max_length=200)
    chunk_count: int
    created_at: datetime = _created()
    updated_at: datetime = _created()
    # The job whose write stored the source last; null for a write outside a job.
    job_id: str | None = Field(default=None, max_length=64)


class SourceMentionRow(SQLModel, table=True):
    """Which graph nodes a source mentions; a node no source mentions and no edge touches
    is an orphan and is deleted."""

    __tablename__ = "source_mentions"
    __table_args__ = (
        sa.Index("ix_mentions_node", "client_id", "project_id", "group_id", "node_key"),
    )

    client_id: str = Field(primary_key=True, max_length=200)
    project_id: str = Field(primary_key=True, max_length=200)
    group_id: str = Field(primary_key=True, max_length=200)
    source_urn: str = Field(primary_key=True, max_length=2048)
    node_key: str = Field(primary_key=True, max_length=512)


class ApiKeyRow(SQLModel, table=True):
    """An API key: only its hash is stored; scope and role make the principal."""

    __tablename__ = "api_keys"

    id: str = Field(primary_key=True, max_length=36)
    key_hash: str = Field(max_length=64, unique=True)
    client_id: str = _scope_field()
    project_id: str = _scope_field()
    group_id: str = _scope_field()
    role: str = Field(max_length=20)
    label: str = Field(default="", sa_column_kwargs={"server_default": ""}, max_length=200)
    created_at: datetime = _created()
    revoked_at: datetime | None = Field(
        default=None, sa_column=sa.Column(sa.DateTime(timezone=True))
    )


class ProjectGroupRow(SQLModel, table=True):
    """Which group a project is in: visibility reads it, so a move is one update here."""

    __tablename__ = "project_groups"
    __table_args__ = (sa.Index("ix_project_groups_group", "client_id", "group_id"),)

    client_id: str = Field(primary_key=True, max_length=200)
    project_id: str = Field(primary_key=True, max_length=200)
    group_id: str = Field(max_length=200)
    updated_at: datetime = _created()


class MetaRow(SQLModel, table=True):
    """Facts about the database itself: embedding model and dimension, schema version."""

    __tablename__ = "kenning_meta"

    key: str = Field(primary_key=True, max_length=100)
    value: str = Field(sa_column=sa.Column(sa.Text(), nullable=False))


metadata = SQLModel.metadata

"""What the exact vector scan reads (migration 0021), kept by triggers on ``chunks``.

``chunk_scopes`` numbers each scope (client, project, group) chunks are stored in;
``chunk_vectors`` holds one narrow row per chunk: its scope's number, its key, its embedding
in half precision and its filter columns, in that order in the table (the migration's).
Read by ``kenning.storage.retrieval.exact_sql``. ``chunk_vector_versions`` (migration 0022)
counts each client's writes to ``chunk_vectors``, so a copy of its rows held in memory
(``kenning.storage.retrieval.resident``) knows whether it is still current.
"""

from __future__ import annotations

import sqlalchemy as sa
from pgvector.sqlalchemy import HALFVEC
from sqlalchemy.dialects.postgresql import ARRAY
from sqlmodel import Field, SQLModel

# The dimension is the configured embedding dimension, applied by the migration.
HALF_EMBEDDING = HALFVEC()


class ChunkScopeRow(SQLModel, table=True):
    """A scope some chunk was stored in; the numbers are never reused."""

    __tablename__ = "chunk_scopes"
    __table_args__ = (sa.UniqueConstraint("client_id", "project_id", "group_id"),)

    id: int = Field(sa_column=sa.Column(sa.Integer, sa.Identity(always=True), primary_key=True))
    client_id: str = Field(max_length=200)
    project_id: str = Field(max_length=200)
    group_id: str = Field(max_length=200)


class ChunkVectorRow(SQLModel, table=True):
    """A chunk's scope number, filter columns and half-precision embedding; partitioned by
    client like ``chunks``."""

    __tablename__ = "chunk_vectors"
    __table_args__ = (
        sa.PrimaryKeyConstraint("client_id", "id"),
        sa.Index("ix_chunk_vectors_scope", "client_id", "scope"),
        {"postgresql_partition_by": "HASH (client_id)"},
    )

    scope: int
    client_id: str = Field(max_length=200)
    id: str = Field(max_length=64)
    embedding: list[float] = Field(sa_column=sa.Column(HALF_EMBEDDING, nullable=False))
    kind: str = Field(max_length=200)
    knowledge_type: str | None = Field(default=None, max_length=40)
    tags: list[str] = Field(sa_column=sa.Column(ARRAY(sa.Text()), nullable=False))
    source_urn: str = Field(max_length=2048)


class ChunkVectorVersionRow(SQLModel, table=True):
    """One slot of a client's count of write statements to ``chunk_vectors``; only grows."""

    __tablename__ = "chunk_vector_versions"

    client_id: str = Field(primary_key=True, max_length=200)
    slot: int = Field(primary_key=True, sa_type=sa.SmallInteger)
    version: int = Field(sa_type=sa.BigInteger)

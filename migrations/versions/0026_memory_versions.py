"""Memory that stays true: versions of user knowledge and procedures, the ``changes`` audit
trail, and whose memory an item is (``user_key``, ``agent_id``) on procedures and session
entries (user knowledge keeps them in its chunks' metadata).

Existing items become version 1 of their history (created by ``migration-0026``), and stay
shared (``user_key`` ``""``), so nothing any reader sees changes.

Revision ID: 0026
Revises: 0025
Create Date: 2026-12-09 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BY = "migration-0026"


def _seq() -> sa.Column[int]:
    return sa.Column("seq", sa.BigInteger(), sa.Identity(always=True), primary_key=True)


def _stamps() -> list[sa.Column[object]]:
    return [
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            nullable=False,
            server_default=sa.text("now()"),
        ),
        sa.Column("superseded_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deleted_at", sa.DateTime(timezone=True), nullable=True),
    ]


def _owner() -> list[sa.Column[object]]:
    return [
        sa.Column("user_key", sa.String(300), nullable=False, server_default=""),
        sa.Column("agent_id", sa.String(200), nullable=True),
    ]


def _scope() -> list[sa.Column[str]]:
    return [
        sa.Column("client_id", sa.String(200), nullable=False),
        sa.Column("project_id", sa.String(200), nullable=False, server_default=""),
        sa.Column("group_id", sa.String(200), nullable=False, server_default=""),
    ]


def _knowledge_versions() -> None:
    op.create_table(
        "knowledge_versions",
        _seq(),
        *_scope(),
        sa.Column("source_urn", sa.String(200), nullable=False),
        sa.Column("category", sa.String(20), nullable=False),
        sa.Column("user_key", sa.String(300), nullable=False, server_default=""),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("subject", sa.String(200), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("agent_id", sa.String(200), nullable=True),
        sa.Column("created_by", sa.String(100), nullable=False),
        *_stamps(),
        sa.UniqueConstraint(
            "client_id",
            "project_id",
            "group_id",
            "source_urn",
            "version",
            name="uq_knowledge_versions_version",
        ),
        sa.CheckConstraint("version > 0", name="ck_knowledge_versions_version"),
    )
    op.create_index(
        "uq_knowledge_versions_current",
        "knowledge_versions",
        ["client_id", "project_id", "group_id", "source_urn"],
        unique=True,
        postgresql_where=sa.text("superseded_at IS NULL"),
    )
    op.create_index(
        "ix_knowledge_versions_item", "knowledge_versions", ["client_id", "source_urn", "seq"]
    )
    op.execute(f"""
        INSERT INTO knowledge_versions (client_id, project_id, group_id, source_urn, category,
            version, subject, content, created_by, created_at)
        SELECT client_id, project_id, group_id, source_urn,
               upper(substr(kind, length('user_knowledge_') + 1)), 1,
               left(coalesce(min(metadata->>'subject'), source_urn), 200),
               string_agg(content, E'\\n\\n' ORDER BY ordinal), '{_BY}', max(updated_at)
        FROM chunks WHERE kind LIKE 'user\\_knowledge\\_%'
        GROUP BY client_id, project_id, group_id, source_urn, kind
    """)


def _procedure_versions() -> None:
    op.add_column(
        "procedures", sa.Column("user_key", sa.String(300), nullable=False, server_default="")
    )
    op.add_column("procedures", sa.Column("agent_id", sa.String(200), nullable=True))
    op.add_column(
        "procedures", sa.Column("version", sa.Integer(), nullable=False, server_default="1")
    )
    op.create_table(
        "procedure_versions",
        _seq(),
        sa.Column("procedure_id", sa.String(36), nullable=False),
        sa.Column("client_id", sa.String(200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("trigger_pattern", sa.String(500), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("steps", JSONB(), nullable=False),
        sa.Column("source", sa.String(20), nullable=False),
        *_owner(),
        sa.Column("created_by", sa.String(100), nullable=False),
        *_stamps(),
        sa.UniqueConstraint("procedure_id", "version", name="uq_procedure_versions_version"),
        sa.CheckConstraint("version > 0", name="ck_procedure_versions_version"),
    )
    op.create_index(
        "ix_procedure_versions_item", "procedure_versions", ["client_id", "procedure_id", "seq"]
    )
    op.execute("""
        INSERT INTO procedure_versions (procedure_id, client_id, version, trigger_pattern,
            description, steps, source, created_by, created_at)
        SELECT id, client_id, 1, trigger_pattern, description, steps, source, created_by,
               updated_at
        FROM procedures ORDER BY created_at, id
    """)


def _changes() -> None:
    op.create_table(
        "changes",
        _seq(),
        *_scope(),
        sa.Column("user_key", sa.String(300), nullable=False, server_default=""),
        sa.Column("item_kind", sa.String(40), nullable=False),
        sa.Column("item_id", sa.String(2048), nullable=False),
        sa.Column("item_key", sa.String(2048), nullable=True),
        sa.Column("action", sa.String(20), nullable=False),
        sa.Column("old", JSONB(), nullable=True),
        sa.Column("new", JSONB(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("changed_by", sa.String(100), nullable=False),
        sa.Column(
            "changed_at",
            sa.DateTime(timezone=True),
            nullable=False,
            server_default=sa.text("now()"),
        ),
    )
    op.create_index("ix_changes_client", "changes", ["client_id", "seq"])
    op.create_index("ix_changes_item", "changes", ["client_id", "item_id", "seq"])
    op.create_index("ix_changes_key", "changes", ["client_id", "item_key", "seq"])


def upgrade() -> None:
    _knowledge_versions()
    _procedure_versions()
    _changes()
    for column in _owner():
        op.add_column("session_entries", column)


def downgrade() -> None:
    op.drop_column("session_entries", "agent_id")
    op.drop_column("session_entries", "user_key")
    op.drop_table("changes")
    op.drop_table("procedure_versions")
    op.drop_column("procedures", "version")
    op.drop_column("procedures", "agent_id")
    op.drop_column("procedures", "user_key")
    op.drop_table("knowledge_versions")

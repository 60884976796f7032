"""Hard rules: a client's mandatory, versioned rules, isolated by client in the database.

Row-level security on ``hard_rules`` shows the storage's NOLOGIN role only the rows of the
client its transaction names in ``kenning.client_id``; with no client named it sees none.
Superusers and the table's owner bypass the policy (the owner is forced under it), so the
storage switches to the role for every statement (``kenning.storage.memory.rules``).

Roles belong to the whole cluster, not to one database: the upgrade tolerates a role another
database already created (even concurrently), and the downgrade drops the role only when no
other database still grants it anything.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 18:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from kenning.storage.db.rule_table import CLIENT_SETTING, RULES_ROLE

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Two databases migrated at once may both miss the role and both create it.
_CREATE_ROLE = f"""
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{RULES_ROLE}') THEN
        BEGIN
            CREATE ROLE {RULES_ROLE} NOLOGIN;
        EXCEPTION WHEN duplicate_object OR unique_violation THEN
            NULL;
        END;
    END IF;
    -- A migrating user that is not a superuser needs membership to switch to the role.
    IF NOT pg_has_role(current_user, '{RULES_ROLE}', 'MEMBER') THEN
        EXECUTE format('GRANT {RULES_ROLE} TO %I', current_user);
    END IF;
END
$$"""

# Still granted something in another database: that database keeps its role.
_DROP_ROLE = f"""
DO $$
BEGIN
    DROP ROLE IF EXISTS {RULES_ROLE};
EXCEPTION WHEN dependent_objects_still_exist THEN
    NULL;
END
$$"""

_CLIENT = f"nullif(current_setting('{CLIENT_SETTING}', true), '')"


def _timestamp(name: str, nullable: bool) -> sa.Column[object]:
    default = None if nullable else sa.text("now()")
    return sa.Column(name, sa.DateTime(timezone=True), server_default=default,
                     nullable=nullable)  # fmt: skip


def upgrade() -> None:
    op.create_table(
        "hard_rules",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("client_id", sa.String(length=200), nullable=False),
        sa.Column("project_id", sa.String(length=200), server_default="", nullable=False),
        sa.Column("rule_key", sa.String(length=200), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("rule_type", sa.String(length=20), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(length=100), nullable=False),
        _timestamp("created_at", nullable=False),
        _timestamp("superseded_at", nullable=True),
        _timestamp("deleted_at", nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint(
            "client_id", "project_id", "rule_key", "version", name="uq_hard_rules_version"
        ),
        sa.CheckConstraint("client_id <> ''", name="ck_hard_rules_client"),
        sa.CheckConstraint("version > 0", name="ck_hard_rules_version"),
    )
    op.create_index(
        "uq_hard_rules_current",
        "hard_rules",
        ["client_id", "project_id", "rule_key"],
        unique=True,
        postgresql_where=sa.text("superseded_at IS NULL"),
    )
    op.execute(_CREATE_ROLE)
    op.execute(f"GRANT SELECT, INSERT, UPDATE ON hard_rules TO {RULES_ROLE}")
    op.execute("ALTER TABLE hard_rules ENABLE ROW LEVEL SECURITY")
    op.execute("ALTER TABLE hard_rules FORCE ROW LEVEL SECURITY")
    op.execute(
        f"CREATE POLICY hard_rules_client ON hard_rules TO {RULES_ROLE} "
        f"USING (client_id = {_CLIENT}) WITH CHECK (client_id = {_CLIENT})"
    )


def downgrade() -> None:
    # Dropping the table drops its policy and this database's grants to the role.
    op.drop_table("hard_rules")
    op.execute(_DROP_ROLE)

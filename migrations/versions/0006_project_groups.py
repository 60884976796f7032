"""Project groups: which group each project is in, in one place.

Visibility used to read the group stamped on every row at write time, so a project moved
to another group stayed visible to the old group and invisible to the new one. Reads now
take a project's group from this table. The backfill records each project with the group
its rows name; a project whose rows name several groups gets the first in name order (the
old rule showed it to all of them; ``kenning projects move`` settles it).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 10:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_STAMPED = ("chunks", "ingestion_jobs", "connections", "api_keys")


def upgrade() -> None:
    op.create_table(
        "project_groups",
        sa.Column("client_id", sa.String(length=200), nullable=False),
        sa.Column("project_id", sa.String(length=200), nullable=False),
        sa.Column("group_id", sa.String(length=200), nullable=False),
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("client_id", "project_id"),
    )
    op.create_index("ix_project_groups_group", "project_groups", ["client_id", "group_id"])
    stamped = " UNION ".join(
        f"SELECT DISTINCT client_id, project_id, group_id FROM {table} "
        "WHERE client_id <> '' AND project_id <> '' AND group_id <> ''"
        for table in _STAMPED
    )
    op.execute(
        "INSERT INTO project_groups (client_id, project_id, group_id) "
        f"SELECT DISTINCT ON (client_id, project_id) client_id, project_id, group_id "
        f"FROM ({stamped}) s ORDER BY client_id, project_id, group_id"
    )


def downgrade() -> None:
    op.drop_index("ix_project_groups_group", table_name="project_groups")
    op.drop_table("project_groups")

"""Queue counts: jobs per scope, lane and status, kept by triggers on ``ingestion_jobs``.

``queueStatus`` counted every job ever recorded (``count(*) ... GROUP BY``), so its cost grew
with the history. ``queue_counts`` holds one row per (client, project, group, lane, status)
and statement-level triggers apply each statement's net change in that statement's own
transaction, so no code path can forget one and a rolled-back change never counts. Each
statement adds its deltas with one ``INSERT ... ON CONFLICT DO UPDATE`` in key order: the
row lock makes concurrent increments serial (none is lost), and taking the locks in one
order means two statements cannot deadlock on them. An update that changes no key (a
heartbeat, a stage) nets to zero and writes nothing. ``TRUNCATE ingestion_jobs`` empties the
counts too. The snapshot reads the counts with the jobs' own visibility predicate
(``kenning/storage/queue/snapshot.py``).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26 10:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_KEY = "client_id, project_id, group_id, lane, status"


def _apply(deltas: str) -> str:
    """Add ``deltas`` (rows of the key and ``n``) to the counts, netted, in key order."""
    return f"""
        INSERT INTO queue_counts AS c ({_KEY}, n)
        SELECT {_KEY}, sum(n) FROM ({deltas}) d
        GROUP BY {_KEY} HAVING sum(n) <> 0 ORDER BY {_KEY}
        ON CONFLICT ({_KEY}) DO UPDATE SET n = c.n + excluded.n;"""


_ADDED = f"SELECT {_KEY}, 1 AS n FROM new_jobs"
_REMOVED = f"SELECT {_KEY}, -1 AS n FROM old_jobs"
_FUNCTION = f"""
CREATE FUNCTION count_queue_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN {_apply(_ADDED)}
    ELSIF TG_OP = 'UPDATE' THEN {_apply(_ADDED + " UNION ALL " + _REMOVED)}
    ELSIF TG_OP = 'DELETE' THEN {_apply(_REMOVED)}
    ELSE DELETE FROM queue_counts;
    END IF;
    RETURN NULL;
END $$"""
_TRIGGERS = {
    "queue_counts_insert": "AFTER INSERT ON ingestion_jobs REFERENCING NEW TABLE AS new_jobs",
    "queue_counts_update": (
        "AFTER UPDATE ON ingestion_jobs REFERENCING OLD TABLE AS old_jobs NEW TABLE AS new_jobs"
    ),
    "queue_counts_delete": "AFTER DELETE ON ingestion_jobs REFERENCING OLD TABLE AS old_jobs",
    "queue_counts_truncate": "AFTER TRUNCATE ON ingestion_jobs",
}


def upgrade() -> None:
    op.create_table(
        "queue_counts",
        *(sa.Column(name, sa.String(length=200), nullable=False) for name in _KEY.split(", ")[:3]),
        sa.Column("lane", sa.String(length=20), nullable=False),
        sa.Column("status", sa.String(length=40), nullable=False),
        sa.Column("n", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint(*_KEY.split(", ")),
    )
    op.execute(_FUNCTION)
    for name, when in _TRIGGERS.items():
        op.execute(f"CREATE TRIGGER {name} {when} FOR EACH STATEMENT "
                   "EXECUTE FUNCTION count_queue_jobs()")  # fmt: skip
    # The triggers' lock (SHARE ROW EXCLUSIVE) holds writers off until this commits, so the
    # history counted here and the changes counted from now on neither miss nor overlap.
    op.execute(
        f"INSERT INTO queue_counts ({_KEY}, n) "
        f"SELECT {_KEY}, count(*) FROM ingestion_jobs GROUP BY {_KEY}"
    )


def downgrade() -> None:
    for name in _TRIGGERS:
        op.execute(f"DROP TRIGGER {name} ON ingestion_jobs")
    op.execute("DROP FUNCTION count_queue_jobs()")
    op.drop_table("queue_counts")

"""The planner charges a cosine distance what it costs: ``cosine_distance(vector, vector)``
gets ``COST 100`` instead of pgvector's 1.

PostgreSQL charges every function call ``cpu_operator_cost`` times the function's cost, so at
1 it prices the distance of two 384-float vectors, one of them stored out of line, like an
integer comparison. Measured on ``bench.read``'s 100k-chunk database, visiting a partition's
rows costs 0.06 µs a row, and 2.8 µs a row with the distance computed: by the planner's own
scale (``cpu_tuple_cost`` 0.01 for the visit) the distance is worth about 180 times
``cpu_operator_cost``. 100 is a round figure below that which was enough: with it the plans
below changed, and exact scans stay planned where they are cheap.

The misprice decided plans: with ``hnsw.ef_search`` 200, PostgreSQL costed the HNSW scan of a
partition of 10k rows above an exact scan of the partition, which took 35 ms instead of 6 and
dropped HYBRID at 100k chunks from 77 to 29 queries/s at 8 in flight. With the cost it keeps
the index there, and still scans exactly where that is cheap (partitions of about 1k rows, a
scope of a few hundred rows found by its btree).

The cost belongs to pgvector's function, owned by whoever created the extension: a role that
does not own it (migrating after a superuser created ``vector``) gets a warning naming the
statement to run as the owner instead of a failed migration. A dump and restore, or the
extension dropped and created again, puts the cost back to 1 while the schema stays at 0020;
``/readyz`` says so in the ``pgvector`` part's detail either way.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-26 07:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DISTANCE = "cosine_distance(vector, vector)"
COST = 100


def _set_cost(cost: int) -> str:
    statement = f"ALTER FUNCTION {DISTANCE} COST {cost}"
    return f"""
DO $$
BEGIN
    IF pg_has_role(current_user, (SELECT proowner FROM pg_proc
                                  WHERE oid = '{DISTANCE}'::regprocedure), 'USAGE') THEN
        {statement};
    ELSE
        RAISE WARNING 'not the owner of {DISTANCE}: run as its owner: {statement}';
    END IF;
END
$$"""


def upgrade() -> None:
    op.execute(_set_cost(COST))


def downgrade() -> None:
    op.execute(_set_cost(1))

"""The planner charges a cosine distance what it costs: ``cosine_distance(vector, vector)``
gets ``COST 100`` instead of pgvector's 1.

PostgreSQL charges every function call ``cpu_operator_cost`` times the function's cost, so at
1 it prices the distance of two 384-float vectors, one of them stored out of line, like an
integer comparison. Measured on ``bench.read``'s 100k-chunk database, a partition's rows cost
0.06 µs each to visit and 2.8 µs each with the distance: by the planner's own scale
(``cpu_tuple_cost`` 0.01 for the visit) the distance is worth 100-190 times
``cpu_operator_cost``; 100 is the lower end.

The misprice decided plans: with ``hnsw.ef_search`` 200, PostgreSQL costed the HNSW scan of a
partition of 10k rows above an exact scan of the partition, which took 35 ms instead of 6 and
dropped HYBRID at 100k chunks from 77 to 29 queries/s at 8 in flight. With the cost it keeps
the index there, and still scans exactly where that is cheap (partitions of about 1k rows, a
scope of a few hundred rows found by its btree).

The setting belongs to pgvector's function, so ``ALTER EXTENSION vector UPDATE`` may put it
back to 1 (an update script that replaces the function resets it); ``kenning migrate``
does not re-apply it; `/readyz` reports it in the ``pgvector`` part's detail.

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


def upgrade() -> None:
    op.execute(f"ALTER FUNCTION {DISTANCE} COST {COST}")


def downgrade() -> None:
    op.execute(f"ALTER FUNCTION {DISTANCE} COST 1")

"""Autovacuum cleans ``bm25_postings``' index after 100,000 dead postings, and never skips it.

A chunk deleted or replaced leaves its postings dead, and KEYWORD's top-k reads each query
word's best postings by impact from the index (migration 0019), dead entries included, each
checked against the table. PostgreSQL's defaults let them pile up there:

- autovacuum waits for 20 % of the table to be dead, 10 million postings at a million chunks;
- a vacuum skips the index (``INDEX_CLEANUP AUTO``) while fewer than 2 % of the table's pages
  hold dead rows, and a purge's dead rows sit together on the pages where those chunks were
  written, so a plain ``VACUUM`` of ``bench.read``'s database found 1,012,415 dead index
  entries and left them all in place.

There, after three runs' ingests and purges (each 5,400 chunks, 337,000 postings),
``bench.read``'s sentence queries read 39.6 ms p50 by KEYWORD's top-k; a ``VACUUM
(INDEX_CLEANUP ON)``, 6 s, brought them back to 27.6 ms. So the table gets a fixed threshold
of 100,000 dead postings (0.2 % of the table at a million chunks; a few hundred documents'
worth) and ``vacuum_index_cleanup = on``. Each such vacuum scans the whole index (4.4 GB at a
million chunks), so the threshold is not lower: a vacuum running slows searches meanwhile.
The downgrade resets the three options, also where an operator had set them by hand.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-26 21:15:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DEAD_POSTINGS = 100_000


def upgrade() -> None:
    op.execute(
        "ALTER TABLE bm25_postings SET (vacuum_index_cleanup = on, "
        f"autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = {DEAD_POSTINGS})"
    )


def downgrade() -> None:
    op.execute(
        "ALTER TABLE bm25_postings RESET (vacuum_index_cleanup, "
        "autovacuum_vacuum_scale_factor, autovacuum_vacuum_threshold)"
    )

"""``chunk_vector_versions``: a counter per client that every write to ``chunk_vectors`` raises.

A Kenning process may hold a large client's ``chunk_vectors`` rows in memory and compare a
query with all of them there (``kenning.storage.retrieval.resident``), at a fraction of the
CPU an exact scan costs PostgreSQL. Such a copy may answer only while it is what the reader's
snapshot would read. This table says when: a statement trigger on ``chunk_vectors`` adds one
to its client's counter in the writing transaction, for every statement that inserts,
updates or deletes a row of that client, and ``TRUNCATE`` raises every client's counter (a
trigger before it; the upgrade gives every client already stored a counter, and an insert
gives a new client one). A copy taken together with the counters' sum (in one snapshot) is
current in another snapshot of the same server when that snapshot reads the same sum: two
snapshots see the same client-writing transactions or one sees more, the counters only
grow, and a write a snapshot sees raised one of them. A different sum does not always mean
a stale copy (the copy may be the newer), only that it may not answer.

What the argument does not cover, because no counter moves: writes that name a partition of
``chunk_vectors`` (``chunk_vectors_p03``) or attach, detach or drop one; writes with its
triggers disabled or ``session_replication_role = replica`` (a logical replica's apply);
and counters that go back (rows of this table deleted, a downgrade and upgrade of this
revision, a restore of an older dump) while Kenning processes keep copies: restart them
after any of these. Kenning itself writes ``chunk_vectors`` only through ``chunks``.

Each client's counter is split in ``SLOTS`` rows, a statement adding to its backend's slot
(``pg_backend_pid() % SLOTS``) in client order, as ``bm25_lengths`` does, so concurrent
writers of one client seldom queue on the same row.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-26 18:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SLOTS = 16


def _bump(rows: str) -> str:
    return (
        "INSERT INTO chunk_vector_versions AS v (client_id, slot, version) "
        f"SELECT DISTINCT client_id, (pg_backend_pid() % {SLOTS})::smallint, 1 FROM {rows} "
        "ORDER BY 1 ON CONFLICT (client_id, slot) DO UPDATE SET version = v.version + 1;"
    )


_FUNCTION = f"""
CREATE FUNCTION chunk_vector_versions_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN {_bump("new_set")}
    ELSIF TG_OP = 'UPDATE' THEN
        {_bump("(SELECT client_id FROM old_set UNION SELECT client_id FROM new_set) x")}
    ELSIF TG_OP = 'DELETE' THEN {_bump("old_set")}
    ELSE UPDATE chunk_vector_versions SET version = version + 1;
    END IF;
    RETURN NULL;
END $$"""
_ON = "ON chunk_vectors REFERENCING"
_TRIGGERS = {
    "chunk_vector_versions_insert": f"AFTER INSERT {_ON} NEW TABLE AS new_set",
    "chunk_vector_versions_update": f"AFTER UPDATE {_ON} OLD TABLE AS old_set NEW TABLE AS new_set",
    "chunk_vector_versions_delete": f"AFTER DELETE {_ON} OLD TABLE AS old_set",
    "chunk_vector_versions_truncate": "BEFORE TRUNCATE ON chunk_vectors",
}


def upgrade() -> None:
    op.execute(
        "CREATE TABLE chunk_vector_versions (client_id varchar(200) NOT NULL, "
        "slot smallint NOT NULL, version bigint NOT NULL, "
        "CONSTRAINT chunk_vector_versions_pkey PRIMARY KEY (client_id, slot))"
    )
    # The triggers' lock waits for writers to end; every client stored gets its counter, so
    # a TRUNCATE, which raises the counters there are, raises each of theirs.
    op.execute(_FUNCTION)
    for name, when in _TRIGGERS.items():
        op.execute(f"CREATE TRIGGER {name} {when} FOR EACH STATEMENT "
                   "EXECUTE FUNCTION chunk_vector_versions_bump()")  # fmt: skip
    op.execute(
        "INSERT INTO chunk_vector_versions (client_id, slot, version) "
        "SELECT DISTINCT client_id, 0, 1 FROM chunk_vectors"
    )


def downgrade() -> None:
    for name in _TRIGGERS:
        op.execute(f"DROP TRIGGER {name} ON chunk_vectors")
    op.execute("DROP FUNCTION chunk_vector_versions_bump()")
    op.execute("DROP TABLE chunk_vector_versions")

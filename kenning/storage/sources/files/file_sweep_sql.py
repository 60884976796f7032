"""SQL of ``PgFileStore.sweep``: originals no job will index, bytes no original points to.

An original is an orphan when it was never indexed and no job may still index it: none of
its "file" jobs (``payload->'file'->>'id'``, migration 0024's index) is queued or running or
ended within the grace period (a cancelled or failed upload may be retried meanwhile), and
it is older than that period (an upload's job is queued just after its original is stored).
Its row's trigger unlinks its bytes.

A large object no ``source_files`` row points to is left by nothing Kenning does (an upload
writes its object and its row in one transaction, and every delete path unlinks), but an
interrupted restore or a hand-made delete can leave one, and nothing else would ever reclaim
it. Only objects of Kenning's own role are considered, in a transaction of their own.
"""

from __future__ import annotations

from typing import Final

# pg_try_advisory_xact_lock's key: one sweeper at a time across processes ("KNFS").
SWEEP_LOCK: Final = 0x4B4E4653

# Rows are taken in id order and those another transaction holds are left for the next
# sweep, so a sweep never waits on, or deadlocks with, a purge or a file job's write. A row
# an upload touched meanwhile (the same content again) is fresh when re-checked, and kept.
SWEEP_ORPHANS: Final = """
    WITH chosen AS (
        SELECT f.id FROM source_files f
        WHERE f.indexed_at IS NULL AND f.created_at < now() - $1::interval
          AND NOT EXISTS (
              SELECT 1 FROM ingestion_jobs j
              WHERE j.payload->>'task' = 'file' AND j.payload->'file'->>'id' = f.id
                AND (j.status IN ('QUEUED', 'RUNNING')
                     OR j.finished_at IS NULL OR j.finished_at >= now() - $1::interval))
        ORDER BY f.id FOR UPDATE SKIP LOCKED),
    swept AS (
        DELETE FROM source_files f USING chosen WHERE f.id = chosen.id RETURNING 1)
    SELECT count(*) FROM swept"""

# Only objects Kenning's role owns: another's (restored by a superuser, say) it may not
# unlink, and one such would fail the whole pass every round.
SWEEP_OBJECTS: Final = """
    SELECT count(lo_unlink(m.oid)) FROM pg_largeobject_metadata m
    WHERE m.lomowner = (SELECT oid FROM pg_roles WHERE rolname = current_user)
      AND NOT EXISTS (SELECT 1 FROM source_files f WHERE f.content_oid = m.oid)"""

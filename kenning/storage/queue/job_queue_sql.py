"""SQL text of ``PgJobQueue``: requesting, listing and cancelling jobs.

Values are always parameters; the only splices are the fixed fragments of
``kenning.storage.queue.job_rows`` (columns, the claim order, the visibility predicate).
"""

from __future__ import annotations

from kenning.storage.db.visibility import visible_rows
from kenning.storage.queue.job_rows import J_COLUMNS, JOB_COLUMNS, LANE_ORDER, ORDER_ROW, order_row

LAST_DONE = """
    SELECT j.id, j.idempotency_key, EXISTS (
               SELECT 1 FROM sources s WHERE s.client_id = j.client_id
               AND s.project_id = j.project_id AND s.group_id = j.group_id
               AND s.source_urn = j.source_urn) AS present
    FROM ingestion_jobs j
    WHERE j.client_id = $1 AND j.project_id = $2 AND j.group_id = $3 AND j.source_key = $4
      AND j.status IN ('INDEXED', 'SKIPPED_DUPLICATE')
    ORDER BY j.finished_at DESC NULLS LAST LIMIT 1"""
INSERT = f"""
    INSERT INTO ingestion_jobs (id, idempotency_key, status, lane, priority, client_id,
        project_id, group_id, source_urn, connection_id, source_kind, source_id,
        content_version, source_key, payload)
    VALUES ($1, $2, 'QUEUED', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb)
    ON CONFLICT (client_id, project_id, group_id, idempotency_key)
        WHERE status IN ('QUEUED', 'RUNNING') DO NOTHING
    RETURNING {JOB_COLUMNS}"""
IN_FLIGHT = """
    SELECT id, status, lane, priority, queue_position, created_at FROM ingestion_jobs
    WHERE client_id = $1 AND project_id = $2 AND group_id = $3 AND idempotency_key = $4
      AND status IN ('QUEUED', 'RUNNING')"""
POSITION = f"""
    SELECT count(*) + 1 FROM ingestion_jobs
    WHERE status = 'QUEUED' AND priority BETWEEN $1 AND $2
      AND {ORDER_ROW} < ($3, coalesce($4::int, 2147483647), $5, $6)"""


FILTERS = """
    AND ($4::text[] IS NULL OR {t}status = ANY($4::text[]))
    AND ($5::text IS NULL OR {t}lane = $5)
    AND ($6::text IS NULL OR {t}connection_id = $6)
    AND ($7::text IS NULL OR {t}source_urn = $7)"""
# A queued job's position is its rank in the whole lane (what it really waits behind),
# ranked once per page and only in the lanes the page's queued jobs are in: a correlated
# count per row could not use ix_jobs_claim and took seconds at 50k queued jobs.
NEWEST_PAGE = f"""
    WITH page AS (
        SELECT {JOB_COLUMNS} FROM ingestion_jobs j
        WHERE {visible_rows(1, "j")} {FILTERS.format(t="j.")}
          AND ($8::timestamptz IS NULL OR (j.created_at, j.id) < ($8, $9::text))
        ORDER BY j.created_at DESC, j.id DESC LIMIT $10),
    ranked AS (
        SELECT q.id, row_number() OVER (PARTITION BY q.lane ORDER BY {LANE_ORDER}) AS position
        FROM ingestion_jobs q
        WHERE q.status = 'QUEUED'
          AND q.lane IN (SELECT lane FROM page WHERE status = 'QUEUED'))
    SELECT page.*, ranked.position FROM page LEFT JOIN ranked ON ranked.id = page.id
    ORDER BY page.created_at DESC, page.id DESC"""
CLAIM_PAGE = f"""
    SELECT * FROM (
        SELECT {JOB_COLUMNS},
               row_number() OVER (PARTITION BY lane ORDER BY {LANE_ORDER}) AS position
        FROM ingestion_jobs WHERE status = 'QUEUED') q
    WHERE {visible_rows(1, "q")} {FILTERS.format(t="q.")}
      AND ($8::int IS NULL
           OR {order_row("q")} > ($8, $9::int, $10::timestamptz, $11::text))
    ORDER BY q.priority, q.queue_position NULLS LAST, q.created_at, q.id LIMIT $12"""
# Only jobs the writer owns (``Scope.owns``, what cancelJob allows one by one): a client's
# for a client key, a project's (whatever group it names) for a project key, and a group's
# own jobs for a group key.
CANCEL_MATCHING = f"""
    WITH chosen AS (
        SELECT id, status AS previous FROM ingestion_jobs
        WHERE status = ANY($4::text[])
          AND ($1 = '' OR (client_id = $1 AND (($2 = '' AND $3 = '')
                           OR ($2 <> '' AND project_id = $2)
                           OR ($2 = '' AND project_id = '' AND group_id = $3))))
          AND ($5::text IS NULL OR lane = $5)
          AND ($6::text IS NULL OR connection_id = $6)
          AND ($7::text IS NULL OR source_urn = $7)
        ORDER BY created_at, id LIMIT $8 FOR UPDATE)
    UPDATE ingestion_jobs j SET status = 'CANCELLED', stage = NULL, lease_owner = NULL,
        lease_expires_at = NULL, finished_at = clock_timestamp(), version = j.version + 1,
        updated_at = clock_timestamp()
    FROM chosen WHERE j.id = chosen.id
    RETURNING {J_COLUMNS}, chosen.previous"""
# A purge's: jobs written at exactly the purged scope (what they would write is what the
# purge removes), in the queue's one lock order (created_at, id).
CANCEL_PURGED = f"""
    WITH chosen AS (
        SELECT id, status AS previous FROM ingestion_jobs
        WHERE client_id = $1 AND project_id = $2 AND group_id = $3
          AND status IN ('QUEUED', 'RUNNING')
          AND ($4::text IS NULL OR connection_id = $4)
          AND ($5::text IS NULL OR source_urn = $5)
        ORDER BY created_at, id FOR UPDATE)
    UPDATE ingestion_jobs j SET status = 'CANCELLED', stage = NULL, lease_owner = NULL,
        lease_expires_at = NULL, last_error = $6, finished_at = clock_timestamp(),
        version = j.version + 1, updated_at = clock_timestamp()
    FROM chosen WHERE j.id = chosen.id
    RETURNING {J_COLUMNS}, chosen.previous"""

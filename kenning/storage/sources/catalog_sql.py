"""SQL of the source listings and the unit purges (``PgSourceCatalog``): every value a
parameter, the reader's scope in ``$1..$3`` through ``visible_rows``.

A source's ``sourceKind`` and ``observedAt`` are its first chunk's (every chunk of a source
is written by one request, with the same ones); its stored file is the original its chunks
were indexed from last (``indexed_at``). Lists are ordered by a unique key so that a cursor
naming the last row of a page resumes exactly after it.
"""

from __future__ import annotations

from typing import Final

from kenning.storage.db.visibility import visible_rows

FILE_COLUMNS: Final = (
    "f.id, f.client_id, f.project_id, f.group_id, f.source_urn, f.filename, f.media_type, "
    "f.size, f.sha256, f.created_at, f.not_kept"
)
FILE_AS: Final = ", ".join(
    f"{column} AS file_{column.removeprefix('f.')}" for column in FILE_COLUMNS.split(", ")
)

_SAME_SOURCE: Final = (
    "{t}.client_id = s.client_id AND {t}.project_id = s.project_id "
    "AND {t}.group_id = s.group_id AND {t}.source_urn = s.source_urn"
)

# $4 kinds, $5 source kinds, $6 connection ids (each null: any), $7 URN prefix (null: any),
# $8 the cursor's (URN, client, project, group) or null, $9 the limit.
_ORDER: Final = "s.source_urn, s.client_id, s.project_id, s.group_id"
_MATCHING: Final = f"""
      AND ($4::text[] IS NULL OR s.kind = ANY($4::text[]))
      AND ($5::text[] IS NULL OR c.source_kind = ANY($5::text[]))
      AND ($6::text[] IS NULL OR s.connection_id = ANY($6::text[]))
      AND ($7::text IS NULL OR starts_with(s.source_urn, $7::text))
      AND ($8::text[] IS NULL OR ({_ORDER}) > ($8[1], $8[2], $8[3], $8[4]))"""


def _branch(clients: str) -> str:
    # One ordered index scan (ix_sources_client_urn, or ix_sources_urn for a global reader)
    # that stops at the limit, instead of sorting every row the reader may see.
    return f"""(
        SELECT s.*, c.source_kind, c.observed_at FROM sources s
        LEFT JOIN LATERAL (
            SELECT c.source_kind, c.observed_at FROM chunks c
            WHERE {_SAME_SOURCE.format(t="c")} ORDER BY c.ordinal LIMIT 1
        ) c ON true
        WHERE {clients} AND {visible_rows(1, "s")} {_MATCHING}
        ORDER BY {_ORDER} LIMIT $9)"""


SOURCES: Final = f"""
    WITH page AS (
        SELECT * FROM (
            {_branch("$1::text <> '' AND s.client_id = $1::text")}
            UNION ALL {_branch("$1::text <> '' AND s.client_id = ''")}
            UNION ALL {_branch("$1::text = ''")}
        ) s ORDER BY {_ORDER} LIMIT $9
    )
    SELECT s.client_id, s.project_id, s.group_id, s.source_urn, s.kind, s.connection_id,
           s.chunk_count, s.updated_at, s.source_kind, s.observed_at, {FILE_AS}
    FROM page s
    LEFT JOIN LATERAL (
        SELECT f.* FROM source_files f
        WHERE {_SAME_SOURCE.format(t="f")} AND f.indexed_at IS NOT NULL
        ORDER BY f.indexed_at DESC, f.id LIMIT 1
    ) f ON true
    ORDER BY {_ORDER}"""

# $4 the cursor's (source URN, id) or null, $5 the limit.
FILES: Final = f"""
    SELECT {FILE_COLUMNS} FROM source_files f
    WHERE {visible_rows(1, "f")}
      AND ($4::text[] IS NULL OR (f.source_urn, f.id) > ($4[1], $4[2]))
    ORDER BY f.source_urn, f.id
    LIMIT $5"""

# The sources at exactly one scope ($1..$3) last written by a job of job $4's identity.
CRAWL_SOURCES: Final = """
    SELECT s.source_urn FROM sources s
    WHERE s.client_id = $1 AND s.project_id = $2 AND s.group_id = $3
      AND s.job_id IN (
        SELECT o.id FROM ingestion_jobs o JOIN ingestion_jobs j
          ON o.client_id = j.client_id AND o.project_id = j.project_id
         AND o.group_id = j.group_id AND o.source_kind = j.source_kind
         AND o.source_id = j.source_id AND o.content_version = j.content_version
        WHERE j.id = $4 AND j.client_id = $1 AND j.project_id = $2 AND j.group_id = $3)
    ORDER BY s.source_urn"""

# A repository branch's state source ($4) and its files' sources ($4 || ':' ...).
REPOSITORY_SOURCES: Final = """
    SELECT s.source_urn FROM sources s
    WHERE s.client_id = $1 AND s.project_id = $2 AND s.group_id = $3
      AND (s.source_urn = $4 OR starts_with(s.source_urn, $4 || ':'))
    ORDER BY s.source_urn"""

"""SQL of the exact nearest-neighbour search: every visible vector compared, no index.

An HNSW graph finds a query's neighbours by walking towards them, which works when they
stand out. A query that resembles nothing (two or three rare names, under an embedder
whose unrelated texts lie near orthogonal) has neighbours that differ from the rest of the
corpus by noise; the walk stops in the wrong places, and at a million chunks ``bench.read``
measured such queries' recall@10 at 0.53 with ``ef_search`` 200 and 0.80 at 1000. Only
comparing every visible vector finds them, and ``PgChunkIndex.nearest`` does so when a
cheap HNSW probe's best similarity is that low (``VectorScan.exact_below``).

The scan reads ``chunk_vectors`` (migration 0021), not ``chunks``, whose embeddings live in
TOAST. The reader's visible scopes are looked up once in ``chunk_scopes`` by the scope
predicate, and each row is kept by its scope's number. Half-precision distances can order
near ties differently from the stored ``vector``'s, so the ``2 * limit + 10`` nearest by
``halfvec`` are ranked again by the chunk's own embedding, and that row passes the scope
predicate and the filters again: ``chunks`` stays the authority on what a reader sees.

Parameters: ``$1..$3`` the reader's scope, ``$4`` the query vector, ``$5`` the limit, then
one array per set filter. The scan reads every row of the reader's clients, so
``PgChunkIndex`` runs it only when they hold at most ``VectorScan.exact_max_rows`` chunks
(``PROBE_SETTINGS`` counts them). Above that, resident copies of those rows in the
process (``resident``) find the candidates instead, and ``nearest_among`` is the second step
alone, run on them.
"""

from __future__ import annotations

from kenning.domain.retrieval.search import SearchFilters
from kenning.storage.db.visibility import visible_rows
from kenning.storage.graph.chunk_reads import CHUNK_COLUMNS
from kenning.storage.retrieval.filter_sql import Statement, reads_chunks, where_visible

# The pgvector settings for the probe (``vector_sql.SCAN_SETTINGS``'s three), then the chunks
# of the clients whose rows the reader's scan would read (its own and the global one; every
# client's for a global reader, ``$4 = ''``), as the BM25 triggers count them.
PROBE_SETTINGS = (
    "SELECT (SELECT coalesce(sum(l.chunks), 0) FROM bm25_lengths l "
    "WHERE $4 = '' OR l.client_id = ANY(ARRAY[$4::text, ''])) AS chunks, "
    "set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', $2, true), "
    "set_config('hnsw.max_scan_tuples', $3, true)"
)
# The numbers of the scopes the reader sees, in the clients it reads.
_SCOPES = (
    "scopes AS MATERIALIZED (SELECT coalesce(array_agg(s.id), '{{}}') AS ids "
    "FROM chunk_scopes s WHERE ($1 = '' OR s.client_id = ANY(ARRAY[$1::text, ''])) "
    "AND {visible})"
)
# The side table has no project or group columns: its scope number stands for them.
_VISIBLE = "v.scope = ANY((SELECT ids FROM scopes)::int[])"
# Per client the reader's scan would read (its own, then the global one): its write counter
# and the numbers of its scopes the reader sees; whether resident copies may answer, and
# which of their rows (``resident``).
RESIDENT_STATE = (
    "SELECT c.client_id, (SELECT coalesce(sum(v.version), 0) FROM chunk_vector_versions v "
    "WHERE v.client_id = c.client_id) AS version, "
    "(SELECT coalesce(array_agg(s.id), '{{}}') FROM chunk_scopes s "
    "WHERE s.client_id = c.client_id AND {visible}) AS scopes "
    "FROM unnest(ARRAY[$1::text, '']) AS c(client_id)"
).format(visible=visible_rows(1, "s"))


def candidates(limit: int) -> int:
    """How many rows the nearest by half precision are that the full vectors re-rank: the
    scan's ``LIMIT $5 * 2 + 10``."""
    return limit * 2 + 10


def nearest_exact(
    filters: SearchFilters, *, one_client: bool = False, narrow_rows: int = 0
) -> Statement:
    """Visible chunks nearest to ``$4`` by cosine distance, every visible vector compared;
    the rows and columns of ``vector_sql.nearest``'s statement.

    ``one_client``: the reader belongs to a client, so only its partition and the global
    one's are read. ``narrow_rows``: when a filter is read on ``chunks`` (one the side table
    has no column for) and at most this many visible chunks pass, found by the filter's own
    index, only their vectors are compared (one key probe each) instead of every visible
    one; more, and the scan answers as without it.
    """
    scopes = _SCOPES.format(visible=visible_rows(1, "s"))
    where, args = where_visible(filters, one_client, alias="v", scope=_VISIBLE, side_table=True)
    joined, _ = where_visible(filters, one_client, alias="c")  # the row itself, again
    scan = (
        "SELECT v.client_id, v.id FROM chunk_vectors v "
        f"WHERE {{gate}} {where} ORDER BY v.embedding <=> (SELECT h FROM q) LIMIT $5 * 2 + 10"
    )
    if narrow_rows and reads_chunks(filters):
        passing, _ = where_visible(filters, one_client, alias="f")
        candidates = (
            f"passing AS MATERIALIZED (SELECT f.client_id, f.id FROM chunks f WHERE {passing} "
            f"LIMIT {narrow_rows + 1}), "
            f"few AS (SELECT count(*) <= {narrow_rows} AS few FROM passing), "
            "candidates AS MATERIALIZED (SELECT * FROM (SELECT v.client_id, v.id "
            "FROM passing p JOIN chunk_vectors v ON v.client_id = p.client_id AND v.id = p.id "
            "WHERE (SELECT few FROM few) ORDER BY v.embedding <=> (SELECT h FROM q) "
            "LIMIT $5 * 2 + 10) n UNION ALL SELECT * FROM ("
            + scan.format(gate="NOT (SELECT few FROM few) AND")
            + ") a)"
        )
    else:
        candidates = f"candidates AS MATERIALIZED ({scan.format(gate='')})"
    text = (
        f"WITH q AS MATERIALIZED (SELECT $4::vector AS v, ($4::vector)::halfvec AS h), {scopes}, "
        f"{candidates}, "
        f"nearest AS (SELECT {CHUNK_COLUMNS}, c.embedding <=> q.v AS distance "
        "FROM candidates k JOIN chunks c ON c.client_id = k.client_id AND c.id = k.id, q "
        f"WHERE {joined} ORDER BY distance, c.id LIMIT $5) "
        "SELECT *, 1 - distance AS score FROM nearest ORDER BY distance, id"
    )
    return Statement(text, args)


def nearest_among(*, one_client: bool = False) -> str:
    """``nearest_exact``'s second step alone: the candidates ``$6`` (client ids) and ``$7``
    (ids) ranked by the chunk's own vector, each passing the scope predicate on ``chunks``
    again; for the resident copies' candidates, which passed any filters in the same
    snapshot (``passing_keys``)."""
    joined, _ = where_visible(SearchFilters(), one_client, alias="c")
    return (
        "WITH q AS MATERIALIZED (SELECT $4::vector AS v), "
        f"nearest AS (SELECT {CHUNK_COLUMNS}, c.embedding <=> q.v AS distance "
        "FROM unnest($6::text[], $7::text[]) AS k(client_id, id) "
        "JOIN chunks c ON c.client_id = k.client_id AND c.id = k.id, q "
        f"WHERE {joined} ORDER BY distance, c.id LIMIT $5) "
        "SELECT *, 1 - distance AS score FROM nearest ORDER BY distance, id"
    )


def passing_keys(filters: SearchFilters, most: int) -> Statement:
    """The keys (``client_id``, ``id``) of the chunks a one-client reader (``$1..$3``) sees
    that pass ``filters`` (their values from ``$4``), at most ``most + 1``: the rows a
    filtered search compares on the resident copies, read in the search's snapshot."""
    where, args = where_visible(filters, True, first=4)
    text = f"SELECT c.client_id, c.id FROM chunks c WHERE {where} LIMIT {most + 1}"
    return Statement(text, args)

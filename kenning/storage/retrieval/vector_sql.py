"""SQL text of the HNSW walk: the nearest visible chunks by cosine distance, every value a
parameter, numbered as ``StatementArgs`` says (``$4`` the query vector). The exact scan's
statements are in ``exact_sql``; ``search_way`` decides which answers.
"""

from __future__ import annotations

from kenning.domain.retrieval.search import SearchFilters
from kenning.storage.graph.chunk_reads import CHUNK_COLUMNS
from kenning.storage.retrieval.filter_sql import Statement, where_visible

SCAN_SETTINGS = (
    "SELECT set_config('hnsw.ef_search', $1, true), "
    "set_config('hnsw.iterative_scan', $2, true), "
    "set_config('hnsw.max_scan_tuples', $3, true)"
)
"""Transaction-local pgvector settings for the next nearest-neighbour statement."""


def nearest(filters: SearchFilters, *, one_client: bool = False) -> Statement:
    """Visible chunks nearest to ``$4`` by cosine distance, score = cosine similarity.

    ``one_client``: the reader belongs to a client (``$1 <> ''``), so only its partition
    and the global one's are searched, each with its own HNSW graph.

    The inner query is what the HNSW index answers; with ``iterative_scan = relaxed_order``
    it may return rows slightly out of distance order, so the outer query sorts them again
    (``+ 0`` keeps PostgreSQL 17 from trusting the inner order and skipping the sort).
    """
    where, args = where_visible(filters, one_client)
    text = (
        "WITH nearest AS MATERIALIZED ("
        f"SELECT {CHUNK_COLUMNS}, c.embedding <=> $4 AS distance FROM chunks c "
        f"WHERE {where} ORDER BY c.embedding <=> $4 LIMIT $5) "
        "SELECT *, 1 - distance AS score FROM nearest ORDER BY distance + 0, id"
    )
    return Statement(text, args)

"""``PgChunkIndex``: the ``ChunkIndex`` port over pgvector HNSW and PostgreSQL full text.

Filtered nearest-neighbour search uses pgvector 0.8's iterative index scans: a plain HNSW
scan looks at ``ef_search`` candidates and filters them afterwards, so a reader who may see
1 % of the chunks would get about 1 % of ``limit`` rows. With ``hnsw.iterative_scan`` the
scan resumes until ``limit`` rows pass the scope and filters, or ``max_scan_tuples`` index
tuples were visited. ``relaxed_order`` is the faster mode (the statement re-sorts the rows);
``strict_order`` is the alternative when exact order during the scan matters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import asyncpg
import numpy as np

from kenning.domain.access.scope import Scope
from kenning.domain.retrieval.search import IndexHit, SearchFilters
from kenning.settings import Settings
from kenning.storage.db.visibility import reader_params
from kenning.storage.graph.chunk_reads import chunk_view
from kenning.storage.retrieval import search_sql

MAX_EF_SEARCH = 1000  # pgvector's upper bound for hnsw.ef_search


@dataclass(frozen=True, slots=True)
class VectorScan:
    """pgvector settings of one nearest-neighbour search.

    ``ef_search``: candidates kept while walking the graph (recall against time; 200 is
    5x pgvector's default of 40; at a million chunks it lifts sentence-like queries'
    recall@10 from 0.90 at 100 to 0.95-0.97 for about 3 ms, see ``bench.read``; it became the
    default once migration 0020 priced the cosine distance, without which PostgreSQL costed
    the HNSW scan of a 10k-row partition above an exact scan of it, 35 ms instead of 6);
    raised to the limit when a caller asks for more rows.
    ``max_scan_tuples``: how many index tuples an iterative scan may visit before it gives
    up (pgvector's default is 20,000; 50,000 lets a reader who sees 0.1 % of 50,000 chunks
    still get its rows).
    """

    ef_search: int = 200
    max_scan_tuples: int = 50_000
    iterative_scan: Literal["relaxed_order", "strict_order"] = "relaxed_order"

    @classmethod
    def from_settings(cls, settings: Settings) -> VectorScan:
        """The scan the ``search_*`` settings describe."""
        return cls(
            ef_search=settings.search_ef_search,
            max_scan_tuples=settings.search_max_scan_tuples,
        )

    def ef_for(self, limit: int) -> int:
        """The ``ef_search`` for ``limit`` rows."""
        return min(max(self.ef_search, limit), MAX_EF_SEARCH)


class PgChunkIndex:
    """Search over the ``chunks`` table; each search is one statement on one connection."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        scan: VectorScan | None = None,
        bm25: search_sql.Bm25 | None = None,
    ) -> None:
        self._pool = pool
        self._scan = scan or VectorScan()
        self._bm25 = bm25 or search_sql.Bm25()

    async def nearest(
        self, embedding: Sequence[float], reader: Scope, filters: SearchFilters, limit: int
    ) -> list[IndexHit]:
        """Visible chunks nearest to ``embedding``; score is the cosine similarity."""
        statement = search_sql.nearest(filters, one_client=bool(reader.client_id))
        vector = np.asarray(embedding, dtype=np.float32)
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(
                search_sql.SCAN_SETTINGS,
                str(self._scan.ef_for(limit)),
                self._scan.iterative_scan,
                str(self._scan.max_scan_tuples),
            )
            rows = await conn.fetch(
                statement.text, *reader_params(reader), vector, limit, *statement.filter_args
            )
        return [IndexHit(chunk_view(row), float(row["score"])) for row in rows]

    async def matching(
        self, text: str, reader: Scope, filters: SearchFilters, limit: int
    ) -> list[IndexHit]:
        """Visible chunks holding any wanted term of ``text``, by BM25 over the query's ceiling.

        The top-k statement reads the head of each term's postings; when fewer than
        ``limit`` of its candidates pass the scope and filters and some were not walked,
        the statement that scores every posting answers instead.
        """
        one_client = bool(reader.client_id)
        args = (*reader_params(reader), text, limit)
        fast = search_sql.matching(filters, self._bm25, one_client=one_client)
        rows = await self._pool.fetch(fast.text, *args, *fast.filter_args)
        if not search_sql.answered(rows, limit):
            every = search_sql.matching_exhaustive(filters, self._bm25, one_client=one_client)
            rows = await self._pool.fetch(every.text, *args, *every.filter_args)
        return [IndexHit(chunk_view(row), float(row["score"])) for row in rows]

"""Filtered search on the read corpus: what a filter keeping about 5 % of the reader's chunks
costs against no filter, in the same run, and how much of the exact filtered answer it finds.

The filter is ``entityKeys``: the node keys the reader's visible chunks name most often,
taken in order until the chunks naming any of them are about ``SHARE`` of the visible ones
(the share is counted and reported). Each query goes through ``PgChunkIndex`` as the server
runs it (the probe, the walk or the exact scan, with the server's settings), unfiltered and
filtered, one at a time with the order rotating (``interleaved``), for VECTOR (the vector
search alone), KEYWORD (the BM25 statements) and HYBRID (the use case: both, at once, each
50 deep, fused).
Recall@10 of the filtered VECTOR search is counted against the same statement with its
order written ``(embedding <=> $4) + 0``, which no index serves: every visible row that
passes the filter compared, the exact filtered answer.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, cast

import asyncpg
import numpy as np

from bench._read_corpus import READER, Spec, search_queries
from bench._read_measure import interleaved
from bench._read_paths import SEARCH_LIMIT, _bm25
from bench._read_recall import recall_at, summary
from kenning.domain.retrieval.search import (
    SearchFilters,
    SearchMode,
    SearchRequest,
    config_for,
    search,
)
from kenning.settings import Settings
from kenning.storage.db.pool import create_pool
from kenning.storage.db.visibility import reader_params, visible_rows
from kenning.storage.embedders.factory import create_embedder
from kenning.storage.embedders.words import words_vector
from kenning.storage.retrieval import vector_sql
from kenning.storage.retrieval.chunk_search import PgChunkIndex, VectorScan

SHARE = 0.05
_VISIBLE = f"c.client_id = ANY(ARRAY[$1::text, '']) AND {visible_rows(1, 'c')}"
# The keys the reader's visible chunks name, most named first.
_KEYS = (
    f"SELECT k.key, count(*) AS chunks FROM chunks c CROSS JOIN LATERAL unnest(c.graph_refs) "
    f"AS k(key) WHERE {_VISIBLE} GROUP BY k.key ORDER BY chunks DESC, k.key LIMIT 400"
)
_COUNT = f"SELECT count(*) FILTER (WHERE c.graph_refs && $4::text[]) FROM chunks c WHERE {_VISIBLE}"
_INNER_ORDER = "ORDER BY c.embedding <=> $4 LIMIT"
_EXACT_ORDER = "ORDER BY (c.embedding <=> $4) + 0 LIMIT"


async def five_percent_filter(pool: asyncpg.Pool) -> tuple[SearchFilters, float]:
    """Entity keys whose chunks are about ``SHARE`` of the reader's visible chunks, and the
    share they are."""
    params = reader_params(READER)
    ranked = await pool.fetch(_KEYS, *params)
    visible = int(await pool.fetchval(f"SELECT count(*) FROM chunks c WHERE {_VISIBLE}", *params))
    keys: list[str] = []
    covered = 0
    for row in ranked:
        if len(keys) == 100 or covered >= SHARE * visible:
            break
        keys.append(row["key"])
        covered = int(await pool.fetchval(_COUNT, *params, keys))
    return SearchFilters(entity_keys=tuple(keys)), covered / max(visible, 1)


async def filtered_search(settings: Settings, spec: Spec, count: int) -> dict[str, Any]:
    """Latency with and without the 5 % filter, and the filtered VECTOR recall@10."""
    queries = search_queries(spec, count, salt=1)
    pool = await create_pool(settings)
    index = PgChunkIndex(pool, VectorScan.from_settings(settings), _bm25(settings))
    started = time.perf_counter()
    try:
        narrowed, share = await five_percent_filter(pool)
        resident = await index.warm(READER)  # the copies, when the reader's searches use them
        dim = settings.embedding_dim
        vector_of = {q: np.asarray(words_vector(q, dim), dtype=np.float32) for q in queries}

        async def nearest(query: str, filters: SearchFilters) -> list[asyncpg.Record]:
            rows, _ = await index.nearest_rows(vector_of[query], READER, filters, SEARCH_LIMIT)
            return rows

        async def matching(query: str, filters: SearchFilters) -> list[str]:
            hits = await index.matching(query, READER, filters, SEARCH_LIMIT)
            return [hit.chunk.id for hit in hits]

        embedder = create_embedder(settings)
        config = config_for(SearchMode.HYBRID, settings.search_fusion_weights())

        async def hybrid(query: str, filters: SearchFilters) -> list[str]:
            request = SearchRequest(query, SearchMode.HYBRID, SEARCH_LIMIT, filters=filters)
            hits = await search(
                request, reader=READER, embedder=embedder, index=index, config=config
            )
            return [hit.chunk.id for hit in hits]

        vector = await interleaved(
            {
                "unfiltered": lambda q: nearest(q, SearchFilters()),
                "filtered": lambda q: nearest(q, narrowed),
            },
            queries,
            pool,
        )
        keyword = await interleaved(
            {
                "unfiltered": lambda q: matching(q, SearchFilters()),
                "filtered": lambda q: matching(q, narrowed),
            },
            queries,
            pool,
        )
        both = await interleaved(
            {
                "unfiltered": lambda q: hybrid(q, SearchFilters()),
                "filtered": lambda q: hybrid(q, narrowed),
            },
            queries,
            pool,
        )
        recalls = await _recalls(pool, narrowed, queries, vector.answers["filtered"], vector_of)
    finally:
        await index.close()
        await pool.close()
    print(f"  filtered search: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return {
        "filter": {"entity_keys": len(narrowed.entity_keys), "share_of_visible": share},
        "ways": dict(index.ways),
        "resident_rows": resident,
        "vector": _latencies(vector.latency),
        "keyword": _latencies(keyword.latency),
        "hybrid": _latencies(both.latency),
        f"filtered_recall_at_{SEARCH_LIMIT}": summary(recalls),
    }


def _latencies(latency: dict[str, Any]) -> dict[str, Any]:
    both = {name: asdict(value) for name, value in latency.items()}
    both["p50_ratio"] = latency["filtered"].p50_ms / latency["unfiltered"].p50_ms
    return both


async def _recalls(
    pool: asyncpg.Pool,
    narrowed: SearchFilters,
    queries: Sequence[str],
    served: Sequence[object],
    vector_of: dict[str, np.ndarray],
) -> list[float]:
    statement = vector_sql.nearest(narrowed, one_client=True)
    exact = statement.text.replace(_INNER_ORDER, _EXACT_ORDER)
    if exact == statement.text:
        raise RuntimeError("the nearest statement's order changed: update _INNER_ORDER")
    recalls = []
    for query, rows in zip(queries, served, strict=True):
        args = (*reader_params(READER), vector_of[query], SEARCH_LIMIT)
        truth = await pool.fetch(exact, *args, *statement.filter_args)
        recalls.append(recall_at(_pairs(rows), _pairs(truth), SEARCH_LIMIT))
    return recalls


def _pairs(rows: object) -> list[tuple[str, float]]:
    records = cast(Sequence[asyncpg.Record], rows)
    return [(r["id"], float(r["distance"])) for r in records]


def filtered_lines(filtered: dict[str, Any] | None) -> list[str]:
    """The filtered-search row of the report, when the run measured it."""
    if not filtered:
        return []
    share = filtered["filter"]["share_of_visible"]
    recall = filtered[f"filtered_recall_at_{SEARCH_LIMIT}"]
    parts = [
        f"{mode} p50 {f['unfiltered']['p50_ms']:.2f} -> {f['filtered']['p50_ms']:.2f} ms "
        f"({f['p50_ratio']:.2f}x)"
        for mode, f in (
            ("HYBRID", filtered["hybrid"]),
            ("VECTOR", filtered["vector"]),
            ("KEYWORD", filtered["keyword"]),
        )
    ]
    return [
        f"filtered search (entityKeys keeping {share:.1%} of the visible chunks): "
        + "; ".join(parts)
        + f"; filtered recall@{SEARCH_LIMIT} vs exact mean {recall['mean']:.3f}, "
        f"min {recall['min']:.2f}"
    ]

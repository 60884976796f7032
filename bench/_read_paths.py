"""The three ways one read is made: raw SQL, Kenning's use case in-process, GraphQL over HTTP.

- ``SqlReads`` sends the very statements the server sends (the text comes from ``bm25_sql``,
  ``vector_sql`` and ``graph_read_sql``; the alias lookup is ``PgAliasRegistry``'s) with
  asyncpg, plus the minimum Python between them: the query embedding, reciprocal rank fusion
  on ids, the breadth-first bookkeeping of ``traverse.neighbors`` on raw records. As
  ``PgChunkIndex`` does, the nearest statement names the reader's client (its partitions
  only) and KEYWORD runs the top-k statement, then the exhaustive one when fewer than the
  limit came back. Vector search is ``PgChunkIndex.nearest_rows`` itself (the probe, then
  the HNSW statement, the exact scan or resident copies): the choice is part of what is
  measured.
- ``DomainReads`` calls ``search`` / ``neighbors`` with the storage adapters the server
  builds (``PgChunkIndex``, ``PgGraphReader``, ``PgAliasRegistry``), without GraphQL/HTTP.
- ``GraphqlReads`` posts the GraphQL query to the running server.

Each returns a comparable answer (chunk ids in order; node keys, edge count, truncated), so
the run checks that all three found the same thing.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import asyncpg
import httpx
import numpy as np

from kenning.domain.access.scope import Scope
from kenning.domain.graph.model import Direction
from kenning.domain.graph.traverse import NeighborsQuery, neighbors
from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.retrieval.fusion import fuse_scores
from kenning.domain.retrieval.rank_fusion import fuse
from kenning.domain.retrieval.search import (
    CandidateDepth,
    FusionMethod,
    FusionWeights,
    SearchFilters,
    SearchMode,
    SearchRequest,
    config_for,
    search,
)
from kenning.settings import Settings
from kenning.storage.db.visibility import reader_params
from kenning.storage.embedders.factory import create_embedder
from kenning.storage.embedders.words import words_vector
from kenning.storage.graph.read_sql import graph_read_sql
from kenning.storage.graph.reader import PgGraphReader
from kenning.storage.ingestion.alias_registry import PgAliasRegistry
from kenning.storage.retrieval import bm25_sql, vector_sql
from kenning.storage.retrieval.chunk_search import PgChunkIndex, VectorScan

SEARCH_LIMIT = 10
DEPTH = 2
NEIGHBOR_LIMIT = 100

SEARCH = """
query Search($q: String!, $limit: Int!, $mode: SearchMode!) {
  search(query: $q, limit: $limit, mode: $mode) {
    __typename
    ... on SearchSuccess {
      hits { score vectorRank keywordRank sourceUrn kind graphRefs chunk { id content } }
    }
    ... on ValidationError { code message }
  }
}"""

NEIGHBORS = """
query Neighbors($key: String!, $depth: Int!, $limit: Int!) {
  neighbors(key: $key, depth: $depth, limit: $limit) {
    truncated
    nodes { key type properties }
    edges { edgeType confidence from { key } to { key } }
  }
}"""

# PgAliasRegistry._load's statement: every neighbors request resolves its start key.
_ALIASES = """SELECT alias_key, canonical_key FROM aliases
                   WHERE client_id = $1 AND alias_key = ANY($2::text[])"""


@dataclass(frozen=True, slots=True)
class Subgraph:
    """What a neighbors read found, in a form every path can produce."""

    nodes: frozenset[str]
    edges: int
    truncated: bool


def _fusion(settings: Settings) -> FusionWeights:
    return settings.search_fusion_weights()


def _bm25(settings: Settings) -> bm25_sql.Bm25:
    return bm25_sql.Bm25(
        budget=settings.search_keyword_budget, rescore_per_row=settings.search_keyword_rescore
    )


class SqlReads:
    """The server's statements through asyncpg, with the least Python around them."""

    def __init__(self, pool: asyncpg.Pool, settings: Settings, reader: Scope) -> None:
        self._pool = pool
        self._reader = reader
        self.params = reader_params(reader)
        self._dim = settings.embedding_dim
        self._fusion = _fusion(settings)
        self._depth = CandidateDepth().for_limit(SEARCH_LIMIT)
        self._scan = VectorScan.from_settings(settings)
        self.index = PgChunkIndex(pool, self._scan)
        one_client = bool(reader.client_id)
        self.nearest_text = vector_sql.nearest(SearchFilters(), one_client=one_client).text
        # The statements KEYWORD runs, whatever their ranking (they follow bm25_sql's text).
        bm25 = _bm25(settings)
        self._matching = bm25_sql.matching(SearchFilters(), bm25, one_client=one_client)
        self._exhaustive = bm25_sql.matching_exhaustive(
            SearchFilters(), bm25, one_client=one_client
        )
        statements = graph_read_sql(settings.graph_name)
        self._frontier = statements.frontier_edges(Direction.BOTH, False, False)
        self._nodes = statements.nodes_by_keys()

    def embedding(self, query: str) -> np.ndarray:
        """The query's vector as the server's words embedder makes it."""
        return np.asarray(words_vector(query, self._dim), dtype=np.float32)

    def scan_settings(self, limit: int) -> tuple[str, str, str]:
        """The values of ``vector_sql.SCAN_SETTINGS`` the server sets for ``limit`` rows."""
        scan = self._scan
        return str(scan.ef_for(limit)), scan.iterative_scan, str(scan.max_scan_tuples)

    async def nearest_rows(
        self, embedding: np.ndarray, limit: int
    ) -> tuple[list[asyncpg.Record], bool]:
        """``PgChunkIndex.nearest``'s rows, ``limit`` deep (its probe, then the HNSW statement
        or the exact scan), and whether the exact scan gave them."""
        return await self.index.nearest_rows(embedding, self._reader, SearchFilters(), limit)

    async def _vector(self, query: str) -> list[asyncpg.Record]:
        return (await self.nearest_rows(self.embedding(query), self._depth))[0]

    async def keyword_rows(self, query: str, limit: int) -> tuple[list[asyncpg.Record], bool]:
        """``PgChunkIndex.matching``: the top-k statement, the exhaustive one when fewer
        than ``limit`` rows came back; also whether it fell back."""
        args = (*self.params, query, limit)
        rows = await self._pool.fetch(self._matching.text, *args, *self._matching.filter_args)
        if bm25_sql.answered(rows, limit):
            return rows, False
        every = self._exhaustive
        return await self._pool.fetch(every.text, *args, *every.filter_args), True

    async def exhaustive_rows(self, query: str, limit: int) -> list[asyncpg.Record]:
        """``matching_exhaustive`` alone: every posting scored, the exact BM25 answer."""
        every = self._exhaustive
        return await self._pool.fetch(every.text, *self.params, query, limit, *every.filter_args)

    async def _keyword(self, query: str, limit: int) -> list[asyncpg.Record]:
        return (await self.keyword_rows(query, limit))[0]

    async def keyword_search(self, query: str) -> list[str]:
        """KEYWORD: the matching statements as the server runs them, ``SEARCH_LIMIT`` deep."""
        return [r["id"] for r in await self._keyword(query, SEARCH_LIMIT)]

    async def search(self, query: str) -> list[str]:
        """HYBRID: nearest and matching at once, fused as the server's setting says (by
        score unless ``KENNING_SEARCH_FUSION=rrf``)."""
        vector, keyword = await asyncio.gather(
            self._vector(query), self._keyword(query, self._depth)
        )
        weights = [self._fusion.vector, self._fusion.keyword]
        lists = (vector, keyword)
        if self._fusion.method is FusionMethod.RRF:
            fused = fuse([[r["id"] for r in rows] for rows in lists], weights, k=self._fusion.k)
        else:
            fused = fuse_scores([[(r["id"], r["score"]) for r in rows] for rows in lists], weights)
        return [f.key for f in fused[:SEARCH_LIMIT]]

    async def neighbors(self, key: str) -> Subgraph:
        """Alias lookup, one frontier statement per level, one for the nodes."""
        aliases = await self._pool.fetch(_ALIASES, self._reader.client_id, [key])
        start = aliases[0]["canonical_key"] if aliases else key
        seen: dict[str, None] = {start: None}
        edges: dict[int, asyncpg.Record] = {}
        frontier, truncated = [start], False
        for _ in range(DEPTH):
            rows = await self._pool.fetch(
                self._frontier, *self.params, sorted(set(frontier)), NEIGHBOR_LIMIT + 1
            )
            found: list[str] = []
            for row in rows:
                if row["id"] in edges:
                    continue
                new = [k for k in (row["from_key"], row["to_key"]) if k not in seen]
                if len(edges) >= NEIGHBOR_LIMIT or (new and len(seen) - 1 >= NEIGHBOR_LIMIT):
                    truncated = True
                    continue
                for k in new:
                    seen[k] = None
                    found.append(k)
                edges[row["id"]] = row
            if truncated or not found:
                break
            frontier = found
        rows = await self._pool.fetch(self._nodes, *self.params, sorted(seen))
        visible = frozenset(r["key"] for r in rows)
        if start not in visible:
            return Subgraph(frozenset(), 0, False)
        kept = [e for e in edges.values() if e["from_key"] in visible and e["to_key"] in visible]
        return Subgraph(visible, len(kept), truncated)


class DomainReads:
    """Kenning's use cases over the server's storage adapters, in this process."""

    def __init__(self, pool: asyncpg.Pool, settings: Settings, reader: Scope) -> None:
        self._reader = reader
        self._max_limit = settings.search_max_limit
        self.index = PgChunkIndex(pool, VectorScan.from_settings(settings), _bm25(settings))
        self._embedder = create_embedder(settings)
        self._configs = {mode: config_for(mode, _fusion(settings)) for mode in SearchMode}
        self._graph = PgGraphReader(pool, settings.graph_name)
        self._aliases = PgAliasRegistry(pool)

    async def _search(self, query: str, mode: SearchMode) -> list[str]:
        hits = await search(
            SearchRequest(query, mode, SEARCH_LIMIT),
            reader=self._reader,
            embedder=self._embedder,
            index=self.index,
            config=self._configs[mode],
            max_limit=self._max_limit,
        )
        return [hit.chunk.id for hit in hits]

    async def search(self, query: str) -> list[str]:
        return await self._search(query, SearchMode.HYBRID)

    async def keyword_search(self, query: str) -> list[str]:
        return await self._search(query, SearchMode.KEYWORD)

    async def neighbors(self, key: str) -> Subgraph:
        parsed = parse_key(key).key
        aliases = await self._aliases.resolve(self._reader.client_id, {parsed})
        start = aliases.get(parsed, parsed)
        query = NeighborsQuery(start, DEPTH, Direction.BOTH, None, NEIGHBOR_LIMIT)
        view = await neighbors(self._graph, self._reader, query)
        return Subgraph(frozenset(n.key for n in view.nodes), len(view.edges), view.truncated)


class GraphqlReads:
    """The queries a client sends, over HTTP to the running server."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client

    async def _post(self, query: str, **variables: object) -> Any:
        response = await self._client.post(
            "/graphql", json={"query": query, "variables": variables}
        )
        response.raise_for_status()
        body = json.loads(response.content)
        if body.get("errors"):
            raise RuntimeError(f"GraphQL errors: {body['errors']}")
        return body["data"]

    async def _search(self, query: str, mode: SearchMode) -> list[str]:
        found = await self._post(SEARCH, q=query, limit=SEARCH_LIMIT, mode=mode.value)
        result = found["search"]
        if result["__typename"] != "SearchSuccess":
            raise RuntimeError(f"search failed: {result}")
        return [hit["chunk"]["id"] for hit in result["hits"]]

    async def search(self, query: str) -> list[str]:
        return await self._search(query, SearchMode.HYBRID)

    async def keyword_search(self, query: str) -> list[str]:
        return await self._search(query, SearchMode.KEYWORD)

    async def neighbors(self, key: str) -> Subgraph:
        found = await self._post(NEIGHBORS, key=key, depth=DEPTH, limit=NEIGHBOR_LIMIT)
        found = found["neighbors"]
        nodes = frozenset(n["key"] for n in found["nodes"])
        return Subgraph(nodes, len(found["edges"]), found["truncated"])

    async def floor(self, _: str) -> int:
        """The HTTP round trip alone: ``GET /healthz`` through the same client and stack."""
        response = await self._client.get("/healthz")
        response.raise_for_status()
        return response.status_code

"""No N+1: nodes with their edges, endpoints and evidence cost a constant number of statements.

The query below asks for N nodes with their type, properties, degree and chunks, up to ten
edges each, both endpoints of every edge and each edge's evidence chunks. It issues exactly
**7** SQL statements whatever N is (checked for 50 and 500):

1. the client's aliases for the requested keys,
2. the requested nodes (``NodesByKeyLoader``),
3. their edges (``EdgesByNodeLoader``),
4. their degrees (``DegreeByNodeLoader``),
5. their chunks (``ChunksByNodeLoader``),
6. the edge endpoints not among the requested nodes (``NodesByKeyLoader`` again),
7. the evidence chunks of every edge (``ChunksByIdLoader``).

Statements are counted on the real connection with asyncpg's query logger, on a pool of
one connection (so every statement passes through it); the pool's reset on release is
not a statement of the request and is left out.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest
import redis.asyncio as aioredis
from asyncpg.connection import LoggedQuery

from kenning.domain.access.scope import Scope
from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.db.pool import create_pool
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graph_data import write_graph
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

EXPECTED_STATEMENTS = 7
USERS = 500
ACME = Scope("acme")

QUERY = """
query($keys: [String!]!) {
  nodes(keys: $keys, scope: {clientId: "acme"}) {
    key type properties degree
    scope { clientId projectId groupId }
    chunks(limit: 3) { id }
    edges(limit: 10) {
      edgeType confidence evidenceCount
      from { key type }
      to { key type properties }
      evidence { id content }
    }
  }
}
"""


class StatementLog:
    """The statements one connection ran, without the pool's reset on release."""

    def __init__(self, reset_query: str) -> None:
        self.reset_query = reset_query
        self.queries: list[str] = []

    def __call__(self, record: LoggedQuery) -> None:
        if record.query != self.reset_query:
            self.queries.append(record.query)


@pytest.fixture
async def counted(
    api: Api, migrated_settings: Settings, embedder: CountingEmbedder
) -> AsyncIterator[tuple[asyncpg.Pool, StatementLog]]:
    settings = migrated_settings.model_copy(update={"db_pool_min": 1, "db_pool_max": 1})
    pool = await create_pool(settings)
    async with pool.acquire() as conn:
        log = StatementLog(conn.get_reset_query())
        conn.add_query_logger(log)
    yield pool, log
    await pool.close()


async def statements_for(
    pool: asyncpg.Pool, log: StatementLog, settings: Settings, embedder: CountingEmbedder, n: int
) -> int:
    redis = aioredis.from_url(settings.redis_url)
    # A fresh runtime: no alias answers cached from an earlier request.
    api = Api(Runtime(settings=settings, pool=pool, redis=redis, embedder=embedder))
    log.queries.clear()
    data = await api(QUERY, keys=[f"User:{i}" for i in range(n)])
    await redis.aclose()
    nodes = data["nodes"]
    assert len(nodes) == n and all(node is not None for node in nodes)
    assert all(len(node["edges"]) == 3 for node in nodes)  # owns, knows, known by
    assert all(edge["evidence"] for node in nodes for edge in node["edges"])
    assert {edge["to"]["type"] for node in nodes for edge in node["edges"]} == {"user", "item"}
    return len(log.queries)


async def test_statement_count_is_constant(
    api: Api,
    counted: tuple[asyncpg.Pool, StatementLog],
    migrated_settings: Settings,
    embedder: CountingEmbedder,
) -> None:
    edges = [(f"user:{i}", "owns", f"item:{i}") for i in range(USERS)]
    edges += [(f"user:{i}", "knows", f"user:{(i + 1) % USERS}") for i in range(USERS)]
    await write_graph(api, ACME, edges)
    pool, log = counted
    # Warm up: statements are prepared and types introspected once per connection.
    await statements_for(pool, log, migrated_settings, embedder, 5)
    fifty = await statements_for(pool, log, migrated_settings, embedder, 50)
    five_hundred = await statements_for(pool, log, migrated_settings, embedder, 500)
    assert fifty == five_hundred == EXPECTED_STATEMENTS, log.queries


async def test_neighbors_cost_one_statement_per_level(
    api: Api,
    counted: tuple[asyncpg.Pool, StatementLog],
    migrated_settings: Settings,
    embedder: CountingEmbedder,
) -> None:
    """Aliases, one expansion per level, the nodes: 4 statements for depth 2, endpoints and
    all (they come with the subgraph)."""
    await write_graph(api, ACME, [(f"user:{i}", "knows", f"user:{i + 1}") for i in range(40)])
    pool, log = counted
    redis = aioredis.from_url(migrated_settings.redis_url)
    query = """{ neighbors(key: "user:20", depth: 2, scope: {clientId: "acme"}) {
        nodes { key } edges { from { key type } to { key properties } } } }"""
    runs = []
    for _ in range(2):  # the first warms the connection up; each has a fresh alias cache
        reader_api = Api(
            Runtime(settings=migrated_settings, pool=pool, redis=redis, embedder=embedder)
        )
        log.queries.clear()
        runs.append(await reader_api(query))
    await redis.aclose()
    assert len(runs[1]["neighbors"]["nodes"]) == 5 and len(runs[1]["neighbors"]["edges"]) == 4
    assert len(log.queries) == 4, log.queries

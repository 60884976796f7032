"""BM25 term statistics (migration 0014) and KEYWORD scores over them, on the real database."""

from __future__ import annotations

import math

import asyncpg
import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.retrieval.search import SearchFilters
from kenning.settings import Settings
from kenning.storage.retrieval.bm25_sql import Bm25
from kenning.storage.retrieval.chunk_search import PgChunkIndex

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("clean")]

INSERT = (
    "INSERT INTO chunks (id, source_urn, ordinal, kind, client_id, content, embedding, "
    "content_hash) SELECT x.id, x.id, 0, 'note', x.client, x.content, "
    "array_fill(0.1, ARRAY[$4::int])::vector, 'h' "
    "FROM unnest($1::text[], $2::text[], $3::text[]) AS x(id, client, content)"
)
# What the triggers must have kept, recomputed from the chunks themselves.
EXPECTED_POSTINGS = (
    "SELECT c.client_id, t.lexeme, c.id, cardinality(t.positions) AS tf FROM chunks c, "
    "unnest(c.content_tsv) t ORDER BY 1, 2, 3"
)
KEPT_POSTINGS = "SELECT client_id, lexeme, chunk_id, tf FROM bm25_postings ORDER BY 1, 2, 3"
EXPECTED_LENGTHS = (
    "SELECT client_id, count(*), sum((SELECT sum(cardinality(positions)) "
    "FROM unnest(content_tsv))) FROM chunks GROUP BY 1 ORDER BY 1"
)
KEPT_LENGTHS = (
    "SELECT client_id, sum(chunks), sum(total_length) FROM bm25_lengths GROUP BY 1 "
    "HAVING sum(chunks) <> 0 ORDER BY 1"
)


async def _insert(pool: asyncpg.Pool, dim: int, rows: list[tuple[str, str, str]]) -> None:
    ids, clients, contents = (list(column) for column in zip(*rows, strict=True))
    await pool.execute(INSERT, ids, clients, contents, dim)


async def _kept_equals_recomputed(pool: asyncpg.Pool) -> None:
    assert [tuple(r) for r in await pool.fetch(KEPT_POSTINGS)] == [
        tuple(r) for r in await pool.fetch(EXPECTED_POSTINGS)
    ]
    assert [tuple(r) for r in await pool.fetch(KEPT_LENGTHS)] == [
        tuple(r) for r in await pool.fetch(EXPECTED_LENGTHS)
    ]


@pytest.fixture
def dim(migrated_settings: Settings) -> int:
    return migrated_settings.embedding_dim


async def test_triggers_keep_statistics_through_every_write(pool: asyncpg.Pool, dim: int) -> None:
    await _insert(pool, dim, [
        ("a1", "acme", "Retry loops retry failed invoices."),
        ("a2", "acme", "The cache layer serves invoices."),
        ("g1", "", "Global note about retry budgets."),
        ("b1", "beta", "Beta tenant retries nothing."),
    ])  # fmt: skip
    await _kept_equals_recomputed(pool)
    await pool.execute("UPDATE chunks SET content = 'Completely new words here' WHERE id = 'a1'")
    await pool.execute("UPDATE chunks SET client_id = 'beta' WHERE id = 'a2'")
    await pool.execute("UPDATE chunks SET tags = '{x}'")  # no text change: nothing rewritten
    await _kept_equals_recomputed(pool)
    async with pool.acquire() as conn:
        with pytest.raises(asyncpg.PostgresError):
            async with conn.transaction():
                await conn.execute("DELETE FROM chunks WHERE id = 'g1'")
                await conn.execute("SELECT 1/0")
    await _kept_equals_recomputed(pool)
    await pool.execute("DELETE FROM chunks WHERE id IN ('g1', 'b1')")
    await _kept_equals_recomputed(pool)
    await pool.execute("TRUNCATE chunks")
    assert await pool.fetchval("SELECT count(*) FROM bm25_postings") == 0
    assert await pool.fetchval("SELECT count(*) FROM bm25_lengths") == 0


def _bm25(tf: int, dl: int, df: int, n: int, avgdl: float) -> float:
    p = Bm25()
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf * (p.k1 + 1) / (tf + p.k1 * (1 - p.b + p.b * dl / avgdl))


async def test_score_is_bm25_over_the_query_ceiling(pool: asyncpg.Pool, dim: int) -> None:
    await _insert(pool, dim, [
        ("a1", "acme", "invoice invoice retry"),
        ("a2", "acme", "invoice cache layer warm"),
        ("a3", "acme", "nothing relevant at all"),
    ])  # fmt: skip
    found = await PgChunkIndex(pool).matching("invoices retry", Scope("acme"), SearchFilters(), 10)
    # Lengths: 3, 4 and 2 lexeme positions ("at" and "all" are stop words), avgdl = 3.
    n, avgdl = 3, 3.0
    ceiling = sum(math.log(1 + (n - df + 0.5) / (df + 0.5)) * 2.2 for df in (2, 1))
    first = (_bm25(2, 3, 2, n, avgdl) + _bm25(1, 3, 1, n, avgdl)) / ceiling
    second = _bm25(1, 4, 2, n, avgdl) / ceiling
    assert [h.chunk.id for h in found] == ["a1", "a2"]
    assert [h.score for h in found] == pytest.approx([first, second])
    assert all(0 < h.score < 1 for h in found)


async def test_other_tenants_text_never_moves_a_score(pool: asyncpg.Pool, dim: int) -> None:
    await _insert(pool, dim, [("a1", "acme", "invoice retry"), ("a2", "acme", "cache warm")])
    index = PgChunkIndex(pool)
    before = await index.matching("invoice retry", Scope("acme"), SearchFilters(), 10)
    await _insert(pool, dim, [(f"b{i}", "beta", "invoice " * (i + 1)) for i in range(50)])
    after = await index.matching("invoice retry", Scope("acme"), SearchFilters(), 10)
    assert [(h.chunk.id, h.score) for h in after] == [(h.chunk.id, h.score) for h in before]
    # A global chunk counts for every reader (it makes "invoice" commoner, so worth less).
    await _insert(pool, dim, [("g1", "", "invoice archive")])
    shared = await index.matching("invoice retry", Scope("acme"), SearchFilters(), 10)
    assert {h.chunk.id for h in shared} == {"a1", "g1"}
    assert shared[0].score != before[0].score


async def test_phrases_and_exclusions_still_filter(pool: asyncpg.Pool, dim: int) -> None:
    await _insert(pool, dim, [
        ("a1", "acme", "the retry loop drops invoices"),
        ("a2", "acme", "loop of retry and invoices"),
        ("a3", "acme", "retry loop with a cache"),
    ])  # fmt: skip
    index, reader, none = PgChunkIndex(pool), Scope("acme"), SearchFilters()
    phrase = await index.matching('"retry loop"', reader, none, 10)
    assert {h.chunk.id for h in phrase} == {"a1", "a3"}
    excluded = await index.matching("retry -cache", reader, none, 10)
    assert {h.chunk.id for h in excluded} == {"a1", "a2"}
    assert await index.matching("the -retry", reader, none, 10) == []
    odd = await index.matching("O'Brien's a\\b 'retry''", reader, none, 10)
    assert {h.chunk.id for h in odd} == {"a1", "a2", "a3"}

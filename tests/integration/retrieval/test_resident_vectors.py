"""Resident copies (``resident``, migration 0022): they give the exact answer while current,
and no answer once any write to the reader's clients makes them stale, until reloaded."""

from __future__ import annotations

import asyncpg
import numpy as np
import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.retrieval.search import SearchFilters
from kenning.settings import Settings
from kenning.storage.db.visibility import reader_params, visible_rows
from kenning.storage.retrieval.chunk_search import PgChunkIndex, VectorScan
from tests.support.chunk_rows import replace_chunks, unit_vectors

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("clean")]

TOTAL = 600
SLOTS = (("acme", "", ""), ("acme", "web", "fe"), ("acme", "api", "be"), ("acme", "", "fe"),
         ("beta", "web", "fe"), ("", "", ""))  # fmt: skip
READERS = (Scope("acme", "web", "fe"), Scope("acme"), Scope("beta", "web", "fe"))
# Scan no reader's clients in PostgreSQL: every exact answer here comes from the copies.
RESIDENT = VectorScan(exact_max_rows=1, resident_rows=10_000)
EXACT = (
    f"SELECT id, 1 - (embedding <=> $4) AS score FROM chunks c WHERE {visible_rows(1, 'c')} "
    "ORDER BY (embedding <=> $4) + 0, id LIMIT $5"
)
INSERT = (
    "INSERT INTO chunks (id, source_urn, ordinal, kind, client_id, project_id, group_id, "
    "content, embedding, content_hash) VALUES ($1::text, 'doc:' || $1::text, 0, 'note', "
    "$2, $3, $4, 'added', $5, 'h')"
)


@pytest.fixture
async def vectors(pool: asyncpg.Pool, migrated_settings: Settings) -> np.ndarray:
    vectors = unit_vectors(21, TOTAL, migrated_settings.embedding_dim)
    records = [
        (f"c{i:05d}", f"doc:{i}", 0, "code" if i % 4 == 1 else "note", *SLOTS[i % 6], f"n{i}",
         vector, f"h{i}")
        for i, vector in enumerate(vectors)
    ]  # fmt: skip
    async with pool.acquire() as conn:
        await replace_chunks(conn, records)
    return vectors


async def _exact(pool: asyncpg.Pool, reader: Scope, query: np.ndarray) -> list[str]:
    return [r["id"] for r in await pool.fetch(EXACT, *reader_params(reader), query, 10)]


async def _search(index: PgChunkIndex, reader: Scope, query: np.ndarray) -> tuple[list[str], bool]:
    rows, exact = await index.nearest_rows(query, reader, SearchFilters(), 10)
    return [r["id"] for r in rows], exact


def _leaning(query: np.ndarray, seed: int, similarity: float) -> np.ndarray:
    """A unit vector at about ``similarity`` to ``query``: nearer than any random chunk."""
    other = unit_vectors(seed, 1, len(query))[0]
    other -= (other @ query) * query
    other /= np.linalg.norm(other)
    mixed = similarity * query + np.sqrt(1 - similarity**2) * other
    return np.asarray(mixed / np.linalg.norm(mixed), dtype=np.float32)


@pytest.mark.parametrize("reader", READERS, ids=lambda s: s.describe())
async def test_current_copies_give_the_exact_answer(
    pool: asyncpg.Pool, vectors: np.ndarray, reader: Scope
) -> None:
    index = PgChunkIndex(pool, RESIDENT)
    query = unit_vectors(100, 1, vectors.shape[1])[0]  # like no chunk: similarity ~0
    assert (await _search(index, reader, query))[1] is False  # nothing loaded yet: the walk
    held = await index.warm(reader)
    assert held == sum(1 for i in range(TOTAL) if SLOTS[i % 6][0] in (reader.client_id, ""))
    assert index.ways["walk"] == 1
    # Queries like no chunk and queries at a chunk (which the walk would answer elsewhere):
    # while the copies are current, they answer every search without filters.
    queries = [*unit_vectors(100, 3, vectors.shape[1]), vectors[1], vectors[4], vectors[5]]
    for query in queries:
        rows, exact = await index.nearest_rows(query, reader, SearchFilters(), 10)
        assert exact
        assert [r["id"] for r in rows] == await _exact(pool, reader, query)
        scores = [float(r["score"]) for r in rows]
        assert all(abs(s - float(query @ vectors[int(r["id"][1:])])) < 1e-5 for s, r in
                   zip(scores, rows, strict=True))  # fmt: skip
    assert index.ways == {"walk": 1, "resident": len(queries)}


@pytest.mark.parametrize(
    "write",
    [
        ("insert", "added", INSERT),
        ("move", "c00001", "UPDATE chunks SET project_id = 'api', group_id = 'be' WHERE id = $1"),
        ("delete", "c00001", "DELETE FROM chunks WHERE id = $1"),
        ("global insert", "added", INSERT),
    ],
    ids=lambda w: w[0],
)
async def test_a_write_to_the_readers_clients_makes_the_copy_stale_until_reloaded(
    pool: asyncpg.Pool, vectors: np.ndarray, write: tuple[str, str, str]
) -> None:
    kind, key, statement = write
    reader = READERS[0]
    index = PgChunkIndex(pool, RESIDENT)
    query = unit_vectors(200, 1, vectors.shape[1])[0]
    if kind.endswith("insert"):
        client = "" if kind == "global insert" else "acme"
        await pool.execute(statement, key, client, "", "", _leaning(query, 201, 0.28))
    else:  # c00001 (acme web/fe, visible) made the nearest visible chunk first
        await pool.execute(
            "UPDATE chunks SET embedding = $2 WHERE id = $1", key, _leaning(query, 202, 0.28)
        )
    await index.warm(reader)
    before, exact = await _search(index, reader, query)
    assert exact and before[0] == key
    await pool.execute(statement, *_write_args(kind, key, query))
    after = await _exact(pool, reader, query)
    assert after != before  # the write changed the exact answer
    assert not (await _search(index, reader, query))[1]  # the stale copy did not answer
    await index.resident_loads()  # the stale search started a reload in the background
    assert await _search(index, reader, query) == (after, True)


def _write_args(kind: str, key: str, query: np.ndarray) -> tuple[object, ...]:
    """The arguments of the write under test, made after the copy was taken."""
    if kind == "insert":  # a second, nearer chunk
        return ("added2", "acme", "", "", _leaning(query, 203, 0.29))
    if kind == "global insert":
        return ("added2", "", "", "", _leaning(query, 204, 0.29))
    return (key,)


async def test_filtered_searches_use_the_copies_and_readers_over_the_budget_get_none(
    pool: asyncpg.Pool, vectors: np.ndarray
) -> None:
    reader = READERS[1]
    query = unit_vectors(300, 1, vectors.shape[1])[0]
    index = PgChunkIndex(pool, RESIDENT)
    await index.warm(reader)
    filters = SearchFilters(kinds=("code",))
    rows, exact = await index.nearest_rows(query, reader, filters, 10)
    assert exact  # the copies compare the rows of the chunks that pass (their keys read first)
    assert {r["kind"] for r in rows} == {"code"} and len(rows) == 10
    # acme and the global rows hold 400 + 100 chunks: over a budget of 300, no copy is taken.
    small = PgChunkIndex(pool, VectorScan(exact_max_rows=1, resident_rows=TOTAL // 2))
    assert await small.warm(reader) == 0
    assert (await _search(small, reader, query))[1] is False
    assert small.resident_rows == 0


async def test_copies_over_the_budget_make_room_for_the_newest(
    pool: asyncpg.Pool, vectors: np.ndarray
) -> None:
    # acme + global: 500 rows, beta + global: 200; a budget of 550 holds one reader's pair.
    index = PgChunkIndex(pool, VectorScan(exact_max_rows=1, resident_rows=550))
    acme, beta = Scope("acme"), READERS[2]
    query = unit_vectors(400, 1, vectors.shape[1])[0]
    assert await index.warm(acme) == 500
    assert await index.warm(beta) == 200  # acme's copy, read least recently, made room
    assert await _search(index, beta, query) == (await _exact(pool, beta, query), True)
    assert (await _search(index, acme, query))[1] is False


async def test_a_copy_read_while_a_write_was_open_stops_answering_once_it_commits(
    pool: asyncpg.Pool, vectors: np.ndarray
) -> None:
    reader = READERS[0]
    index = PgChunkIndex(pool, RESIDENT)
    query = unit_vectors(500, 1, vectors.shape[1])[0]
    async with pool.acquire() as writer:
        transaction = writer.transaction()
        await transaction.start()
        await writer.execute(INSERT, "open", "acme", "", "", _leaning(query, 501, 0.28))
        await index.warm(reader)  # the copy cannot see the open write
        assert await _search(index, reader, query) == (await _exact(pool, reader, query), True)
        await transaction.commit()
    after = await _exact(pool, reader, query)
    assert after[0] == "open"
    assert (await _search(index, reader, query))[1] is False
    await index.resident_loads()
    assert await _search(index, reader, query) == (after, True)

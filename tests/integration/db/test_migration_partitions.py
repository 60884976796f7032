"""Migration 0016 on a database holding chunks: nothing lost either way, statistics whole.

Chunks written at 0015 (three clients and global rows) are copied into the partitioned
table; their BM25 postings are kept and their document frequencies counted, and writes
after the upgrade keep both in step. Downgrading to 0015 copies them back.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from kenning.settings import Settings
from kenning.storage.db.database_url import asyncpg_dsn, with_database
from kenning.storage.db.migrate import run_downgrade, run_upgrade
from tests.support.database import TEST_DATABASE, recreate_database

pytestmark = pytest.mark.integration

DATABASE = f"{TEST_DATABASE}_partitions"
INSERT = (
    "INSERT INTO chunks (id, source_urn, ordinal, kind, client_id, project_id, content, "
    "embedding, content_hash) SELECT 'c' || i, 'doc:' || i, 0, 'note', "
    "(ARRAY['', 'acme', 'beta', 'gamma'])[i % 4 + 1], CASE WHEN i % 4 = 0 THEN '' ELSE 'p' END, "
    "'rollout step ' || i || CASE WHEN i % 3 = 0 THEN ' retry worker' ELSE ' cache' END, "
    "array_fill(0.1, ARRAY[$3::int])::vector, 'h' || i FROM generate_series($1::int, $2::int) i"
)
# Everything the statistics must agree with, and every chunk's identity and text.
STATE = {
    "chunks": "SELECT client_id, id, content FROM chunks ORDER BY 1, 2",
    "postings": "SELECT client_id, lexeme, chunk_id, tf, dl FROM bm25_postings ORDER BY 1, 2, 3",
    "lengths": "SELECT client_id, sum(chunks), sum(total_length) FROM bm25_lengths "
    "GROUP BY 1 HAVING sum(chunks) <> 0 ORDER BY 1",
}
DF = (
    "SELECT t.client_id, t.lexeme, t.df, p.df FROM "
    "(SELECT client_id, lexeme, sum(df) AS df FROM bm25_terms GROUP BY 1, 2) t FULL JOIN "
    "(SELECT client_id, lexeme, count(*) AS df FROM bm25_postings GROUP BY 1, 2) p "
    "USING (client_id, lexeme) WHERE t.df IS DISTINCT FROM p.df AND coalesce(t.df, 0) <> 0"
)


@pytest.fixture
def settings(test_settings: Settings) -> Settings:
    url = with_database(test_settings.database_url, DATABASE)
    asyncio.run(recreate_database(url, DATABASE))
    return test_settings.model_copy(update={"database_url": url})


async def _state(url: str) -> dict[str, list[tuple[object, ...]]]:
    conn = await asyncpg.connect(asyncpg_dsn(url))
    try:
        return {name: [tuple(r) for r in await conn.fetch(sql)] for name, sql in STATE.items()}
    finally:
        await conn.close()


async def _run(url: str, sql: str, *args: object) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(asyncpg_dsn(url))
    try:
        return list(await conn.fetch(sql, *args))
    finally:
        await conn.close()


def test_chunks_survive_0016_both_ways_with_whole_statistics(settings: Settings) -> None:
    url, dim = settings.database_url, settings.embedding_dim
    run_upgrade(settings, "0015")
    asyncio.run(_run(url, INSERT, 1, 200, dim))
    before = asyncio.run(_state(url))
    assert len(before["chunks"]) == 200 and before["postings"]

    run_upgrade(settings, "head")
    assert asyncio.run(_state(url)) == before
    assert asyncio.run(_run(url, DF)) == []  # every document frequency equals its postings
    homes = asyncio.run(_run(url, "SELECT DISTINCT tableoid::regclass::text FROM chunks"))
    assert {r[0] for r in homes} <= {f"chunks_p{i:02d}" for i in range(16)} and len(homes) > 1

    # Writes after the upgrade: new chunks, a changed text, a deletion.
    asyncio.run(_run(url, INSERT, 201, 260, dim))
    asyncio.run(_run(url, "UPDATE chunks SET content = 'entirely new words' WHERE id = 'c5'"))
    asyncio.run(_run(url, "DELETE FROM chunks WHERE id IN ('c6', 'c7', 'c8')"))
    assert asyncio.run(_run(url, DF)) == []
    after = asyncio.run(_state(url))
    assert len(after["chunks"]) == 257

    run_downgrade(settings, "0015")
    assert asyncio.run(_state(url)) == after


def test_a_downgrade_refuses_an_id_held_by_two_clients_and_keeps_everything(
    settings: Settings,
) -> None:
    url, dim = settings.database_url, settings.embedding_dim
    run_upgrade(settings, "head")
    asyncio.run(_run(url, INSERT, 1, 20, dim))
    twin = INSERT.replace("'c' || i", "'c1'").replace("generate_series($1::int, $2::int) i",
                                                         "generate_series($1::int, $2::int) i "
                                                         "WHERE i = 2")  # fmt: skip
    asyncio.run(_run(url, twin, 1, 2, dim))  # id c1 again, under client 'beta'
    before = asyncio.run(_state(url))
    with pytest.raises(RuntimeError, match="chunk id 'c1' exists under several clients"):
        run_downgrade(settings, "0015")
    assert asyncio.run(_state(url)) == before

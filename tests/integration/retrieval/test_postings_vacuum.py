"""``bm25_postings``' vacuum settings (migration 0023): a vacuum removes dead postings from the
index even when they sit on a few pages, where PostgreSQL's default skips the index."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("clean")]

CLIENT = "vacuum-test"
ROWS = 60_000  # about 500 pages
DEAD = 500  # the last ones written: under 1 % of the pages
WRITE = (
    "INSERT INTO bm25_postings (client_id, lexeme, chunk_id, tf, dl) "
    "SELECT $1, 'w' || (i % 500), 'c' || lpad(i::text, 6, '0'), 1, 100 "
    "FROM generate_series(1, $2) AS i"
)


async def _vacuum_report(pool: asyncpg.Pool) -> str:
    """What a plain ``VACUUM (VERBOSE)`` of the table says (autovacuum's defaults too)."""
    lines: list[str] = []

    def heard(_: object, message: object) -> None:
        lines.append(str(message))

    async with pool.acquire() as conn:
        conn.add_log_listener(heard)
        try:
            await conn.execute("VACUUM (VERBOSE) bm25_postings")
        finally:
            conn.remove_log_listener(heard)
    return "\n".join(lines)


async def test_a_vacuum_removes_dead_postings_from_the_index(pool: asyncpg.Pool) -> None:
    await pool.execute("DELETE FROM bm25_postings WHERE client_id = $1", CLIENT)
    await pool.execute(WRITE, CLIENT, ROWS)
    await pool.execute("VACUUM bm25_postings")  # nothing dead yet: a clean start
    dead = await pool.execute(
        "DELETE FROM bm25_postings WHERE client_id = $1 AND chunk_id > $2",
        CLIENT, f"c{ROWS - DEAD:06d}",
    )  # fmt: skip
    assert dead == f"DELETE {DEAD}"
    try:
        for _ in range(20):  # another session's snapshot (an autoanalyze) keeps rows a while
            report = await _vacuum_report(pool)
            if " 0 are dead but not yet removable" in report:
                break
            await asyncio.sleep(0.5)
        assert f"{DEAD} dead item identifiers removed" in report, report
        assert "index scan bypassed" not in report
        left = await pool.fetchval(
            "SELECT count(*) FROM bm25_postings WHERE client_id = $1", CLIENT
        )
        assert left == ROWS - DEAD
    finally:
        await pool.execute("DELETE FROM bm25_postings WHERE client_id = $1", CLIENT)


async def test_autovacuum_waits_for_a_fixed_number_of_dead_postings(pool: asyncpg.Pool) -> None:
    options = await pool.fetchval(
        "SELECT reloptions FROM pg_class WHERE oid = 'bm25_postings'::regclass"
    )
    assert sorted(options) == [
        "autovacuum_vacuum_scale_factor=0",
        "autovacuum_vacuum_threshold=100000",
        "vacuum_index_cleanup=on",
    ]

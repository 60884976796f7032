"""What the triggers on ``chunks`` keep, made in bulk after the read benchmark's load copied
the chunks with the triggers off (one trigger run per ``COPY`` batch maintained the
postings' keys row by row: most of the build at a million): the BM25 statistics (migration
0016's statements) and the exact scan's side tables (migration 0021's), and the postings'
key, dropped before the fill and made again after it.
"""

from __future__ import annotations

import asyncpg

from kenning.storage.db.revision_files import load_revision


async def bm25_statistics(conn: asyncpg.Connection) -> None:
    """Postings, document frequencies and lengths of every chunk in three statements."""
    migration = load_revision("0016_chunks_by_client.py")
    await conn.execute(
        f"INSERT INTO bm25_postings (client_id, lexeme, chunk_id, tf, dl) "
        f"{migration._postings('chunks')}"
    )
    await conn.execute(
        "INSERT INTO bm25_terms (client_id, lexeme, slot, df) "
        "SELECT client_id, lexeme, 0, count(*) FROM bm25_postings GROUP BY client_id, lexeme"
    )
    length = migration._LENGTH.format(v="content_tsv")
    await conn.execute(
        "INSERT INTO bm25_lengths (client_id, slot, chunks, total_length) "
        f"SELECT client_id, 0, count(*), sum({length}) FROM chunks GROUP BY client_id"
    )


async def exact_scan_rows(conn: asyncpg.Connection) -> None:
    """``chunk_scopes`` and ``chunk_vectors`` of every chunk, as migration 0021 fills them
    (their triggers were off with the others while the rows were copied)."""
    for statement in load_revision("0021_chunk_vectors.py").BACKFILL:
        await conn.execute(statement)


async def drop_bm25_keys(conn: asyncpg.Connection) -> list[str]:
    """Drop the postings' key and any other index (made again after the fill); their DDL."""
    rows = await conn.fetch(
        """SELECT quote_ident(c.conname) AS name, pg_get_constraintdef(c.oid) AS def
           FROM pg_constraint c WHERE c.conrelid = 'bm25_postings'::regclass AND c.contype = 'p'"""
    )
    others = await conn.fetch(
        """SELECT i.indexrelid::regclass::text AS name,
                  pg_get_indexdef(i.indexrelid) AS def
           FROM pg_index i WHERE i.indrelid = 'bm25_postings'::regclass AND NOT i.indisprimary"""
    )
    for row in rows:
        await conn.execute(f"ALTER TABLE bm25_postings DROP CONSTRAINT {row['name']}")
    for row in others:
        await conn.execute(f"DROP INDEX {row['name']}")
    keys = [f"ALTER TABLE bm25_postings ADD CONSTRAINT {r['name']} {r['def']}" for r in rows]
    return [*keys, *(r["def"] for r in others)]

"""The asyncpg pool, set up so Apache AGE and pgvector work on every checkout."""

from __future__ import annotations

from typing import TypeAlias

import asyncpg
from asyncpg.pool import PoolConnectionProxy
from pgvector.asyncpg import register_vector

from kenning.settings import Settings
from kenning.storage.db.database_url import asyncpg_dsn

# A search_path given as a startup parameter is the session default, so the pool's
# `RESET ALL` on release restores it instead of dropping it (a `SET` would be lost).
SEARCH_PATH = 'public, ag_catalog, "$user"'
# What the pool hands out and what `connect` returns; query helpers accept either.
Connection: TypeAlias = asyncpg.Connection | PoolConnectionProxy

_SERVER_SETTINGS = {"search_path": SEARCH_PATH, "application_name": "kenning"}


async def _load_age(conn: asyncpg.Connection) -> None:
    # LOAD survives RESET ALL. It is a no-op where age is in shared_preload_libraries;
    # non-superusers may only load from $libdir/plugins, as AGE's docs describe.
    for library in ("age", "$libdir/plugins/age"):
        try:
            await conn.execute(f"LOAD '{library}'")
        except asyncpg.PostgresError:
            continue
        return


async def _init_connection(conn: asyncpg.Connection) -> None:
    await _load_age(conn)
    # Before the first migration the types do not exist yet; the startup check says so.
    present = await conn.fetchrow(
        "SELECT to_regtype('public.vector') IS NOT NULL AS vector, "
        "to_regtype('ag_catalog.graphid') IS NOT NULL AS graphid"
    )
    assert present is not None
    if present["vector"]:
        await register_vector(conn)
    if present["graphid"]:
        # Vertex and edge ids travel as Python ints (graphid is an int8 underneath).
        await conn.set_type_codec(
            "graphid", schema="ag_catalog", encoder=str, decoder=int, format="text"
        )


async def create_pool(settings: Settings, *, min_size: int | None = None) -> asyncpg.Pool:
    """Open a pool whose every connection has AGE loaded and ``ag_catalog`` on its path."""
    pool = await asyncpg.create_pool(
        asyncpg_dsn(settings.database_url),
        min_size=settings.db_pool_min if min_size is None else min_size,
        max_size=settings.db_pool_max,
        server_settings=_SERVER_SETTINGS,
        init=_init_connection,
    )
    assert pool is not None  # asyncpg types the awaited pool as Optional
    return pool


async def connect(settings: Settings) -> asyncpg.Connection:
    """One connection set up like the pool's (for CLI commands and checks)."""
    conn = await asyncpg.connect(
        asyncpg_dsn(settings.database_url), server_settings=_SERVER_SETTINGS
    )
    await _init_connection(conn)
    return conn

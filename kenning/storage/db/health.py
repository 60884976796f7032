"""Probes of the database and Redis: versions, readiness, and the startup contract."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable
from dataclasses import dataclass

import asyncpg
import redis.asyncio as aioredis

from kenning.domain.errors import ConfigurationError
from kenning.domain.health import PartState
from kenning.settings import Settings
from kenning.storage.db.pool import Connection

_EXTENSIONS = {"age": "Apache AGE", "vector": "pgvector"}


@dataclass(frozen=True, slots=True)
class DatabaseVersions:
    """Versions the database reports."""

    postgres: str
    age: str | None
    pgvector: str | None
    schema_revision: str | None


async def database_versions(conn: Connection) -> DatabaseVersions:
    """Server, extension and schema versions of the connected database."""
    postgres = await conn.fetchval("SHOW server_version")
    rows = await conn.fetch(
        "SELECT extname, extversion FROM pg_extension WHERE extname = ANY($1::text[])",
        list(_EXTENSIONS),
    )
    installed = {row["extname"]: row["extversion"] for row in rows}
    revision = None
    if await conn.fetchval("SELECT to_regclass('public.alembic_version') IS NOT NULL"):
        revision = await conn.fetchval("SELECT version_num FROM public.alembic_version")
    return DatabaseVersions(postgres, installed.get("age"), installed.get("vector"), revision)


async def redis_version(client: aioredis.Redis) -> str:
    """The Redis server's version string."""
    info = await client.info("server")
    return str(info.get("redis_version", "unknown"))


async def verify_database(conn: Connection, settings: Settings, head: str) -> None:
    """Raise ``ConfigurationError`` saying what to do unless the database fits this server."""
    versions = await database_versions(conn)
    available = {
        row["name"]
        for row in await conn.fetch(
            "SELECT name FROM pg_available_extensions WHERE name = ANY($1::text[])",
            list(_EXTENSIONS),
        )
    }
    for name, label in _EXTENSIONS.items():
        if name not in available:
            raise ConfigurationError(
                f"the PostgreSQL server has no {label} extension ({name}); install it on the "
                "server (or use `kenning stack up` for a local one)"
            )
    if versions.age is None or versions.pgvector is None or versions.schema_revision is None:
        raise ConfigurationError(
            "the database has no Kenning schema yet: run `kenning migrate` "
            "(or `kenning serve --migrate`)"
        )
    if versions.schema_revision != head:
        raise ConfigurationError(
            f"the database schema is at revision {versions.schema_revision} but this Kenning "
            f"needs {head}: run `kenning migrate` (if the database is newer, upgrade Kenning)"
        )
    recorded = await conn.fetchval("SELECT value FROM kenning_meta WHERE key = 'embedding_dim'")
    if recorded is not None and int(recorded) != settings.embedding_dim:
        raise ConfigurationError(
            f"the database stores {recorded}-dimensional embeddings but the server is configured "
            f"for {settings.embedding_dim}: set KENNING_EMBEDDING_DIM={recorded} or use a "
            "new database"
        )


async def verify_embedder(conn: Connection, model: str, dimension: int) -> None:
    """Raise ``ConfigurationError`` unless the embedder matches the recorded model."""
    rows = await conn.fetch(
        "SELECT key, value FROM kenning_meta WHERE key IN ('embedding_model', 'embedding_dim')"
    )
    recorded = {r["key"]: r["value"] for r in rows}
    if recorded.get("embedding_dim") not in (None, str(dimension)):
        raise ConfigurationError(
            f"the embedder gives {dimension}-dimensional vectors but the database stores "
            f"{recorded['embedding_dim']}: configure a matching embedder or use a new database"
        )
    stored_model = recorded.get("embedding_model")
    if stored_model is not None and stored_model.lower() != model.lower():
        raise ConfigurationError(
            f"the database's vectors come from {stored_model!r} but the embedder is "
            f"{model!r}; vectors of two models do not compare: set KENNING_EMBEDDER and "
            f"KENNING_EMBEDDING_MODEL to match, or use a new database"
        )


# A part that hangs (a firewalled Redis, a stuck database) must not hang the probe.
PROBE_TIMEOUT = 2.0


async def probe_parts(
    pool: asyncpg.Pool, client: aioredis.Redis, graph: str, *, within: float = PROBE_TIMEOUT
) -> list[PartState]:
    """PostgreSQL, AGE, pgvector and Redis, each checked on its own: one down never hides
    the state of the others."""
    database, cache = await asyncio.gather(
        _bounded(_probe_database(pool, graph), within, ("postgres", "age", "pgvector")),
        _bounded(_probe_redis(client), within, ("redis",)),
    )
    return [*database, *cache]


async def _bounded(
    probe: Awaitable[list[PartState]], within: float, names: tuple[str, ...]
) -> list[PartState]:
    try:
        return await asyncio.wait_for(probe, within)
    except TimeoutError:
        return [PartState(name, False, detail=f"no answer within {within:g} s") for name in names]


async def _probe_database(pool: asyncpg.Pool, graph: str) -> list[PartState]:
    try:
        async with pool.acquire() as conn:
            versions = await database_versions(conn)
            age = await _probe(conn, _age_probe(graph))
            vector = await _probe(conn, "SELECT '[1,0]'::vector <=> '[0,1]'::vector = 1")
            if vector == "ok":
                vector = await _distance_cost(conn)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        reason = f"unreachable: {type(error).__name__}"
        return [PartState(name, False, detail=reason) for name in ("postgres", "age", "pgvector")]
    return [
        PartState("postgres", True, versions.postgres),
        PartState("age", age == "ok", versions.age, age),
        PartState("pgvector", vector.startswith("ok"), versions.pgvector, vector),
    ]


async def _probe_redis(client: aioredis.Redis) -> list[PartState]:
    try:
        return [PartState("redis", True, await redis_version(client))]
    except (OSError, aioredis.RedisError) as error:
        return [PartState("redis", False, detail=f"unreachable: {type(error).__name__}")]


# Migration 0020 prices the cosine distance for the planner. A dump and restore, or the
# extension created again, puts it back to 1 (and a migrating role that does not own the
# function could not set it): plans then prefer exact scans of partitions to their HNSW
# indexes. Searches still work, so the part stays up, with this said.
DISTANCE = "cosine_distance(vector, vector)"
DISTANCE_COST = 100
_COST_QUERY = f"SELECT procost FROM pg_proc WHERE oid = to_regprocedure('{DISTANCE}')"


def set_distance_cost(cost: float) -> str:
    """The statement that gives the distance ``cost``; only the function's owner may run it."""
    return f"ALTER FUNCTION {DISTANCE} COST {cost:g}"


async def distance_cost(conn: Connection) -> float | None:
    """The planner cost of ``DISTANCE``; ``None`` without pgvector."""
    cost = await conn.fetchval(_COST_QUERY)
    return None if cost is None else float(cost)


async def _distance_cost(conn: Connection) -> str:
    try:
        cost = await distance_cost(conn)
    except asyncpg.PostgresError as error:
        return f"ok, but its cost could not be read: {type(error).__name__}"
    if cost is None or cost >= DISTANCE_COST:
        return "ok"
    return (
        f"ok, but {DISTANCE} has cost {cost:g} (migration 0020 sets {DISTANCE_COST}): "
        f"nearest-neighbour searches may scan partitions instead of their HNSW indexes; as "
        f"the function's owner (the role that created the extension) run "
        f"{set_distance_cost(DISTANCE_COST)}"
    )


def _age_probe(graph: str) -> str:
    # `graph` is the whitelisted setting. RETURN 1 proves cypher() works on this graph
    # without touching its data: a count would scan every vertex on every probe.
    return (
        f"SELECT count(*) = 1 FROM ag_catalog.cypher('{graph}', "
        "$$ RETURN 1 $$) AS (one ag_catalog.agtype)"
    )


async def _probe(conn: Connection, sql: str) -> str:
    try:
        return _ok(bool(await conn.fetchval(sql)))
    except asyncpg.PostgresError as error:
        return f"failed: {type(error).__name__}"


def _ok(value: bool) -> str:
    return "ok" if value else "failed"


def unavailable_part(error: BaseException) -> str | None:
    """``postgres`` or ``redis`` when ``error`` shows that part to be unreachable.

    redis-py wraps its socket errors in its own ``ConnectionError``, so a bare connection
    error (refused, reset, a name that does not resolve) comes from asyncpg. Other
    ``OSError``s (a missing file, a permission) and timeouts (asyncio raises the same
    ``TimeoutError`` for any deadline) say nothing about a part.
    """
    if isinstance(error, aioredis.ConnectionError | aioredis.TimeoutError):
        return "redis"
    if isinstance(
        error,
        asyncpg.PostgresConnectionError
        | asyncpg.ConnectionDoesNotExistError
        | asyncpg.AdminShutdownError
        | asyncpg.CannotConnectNowError
        | ConnectionError
        | socket.gaierror,
    ):
        return "postgres"
    return None

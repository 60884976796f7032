"""A benchmark's own database: the stack's settings pointed at it, a fresh migrated copy, or
one created when missing and kept."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg

from kenning.settings import EmbedderKind, Settings
from kenning.storage.db.database_url import asyncpg_dsn, database_name, with_database
from kenning.storage.db.migrate import run_upgrade

LOCAL_MODEL = "all-MiniLM-L6-v2"
LOCAL_DIMENSION = 384


def own_settings(
    database: str, redis_db: str, *, embedder: EmbedderKind = EmbedderKind.HASH, **update: Any
) -> Settings:
    """The stack's settings (env overrides honoured) on ``database`` and Redis db
    ``redis_db``, with ``embedder`` (hash or local) and its model, logging warnings only;
    ``update`` sets anything else."""
    base = Settings()
    model: dict[str, Any]
    if embedder is EmbedderKind.LOCAL:
        model = {"embedding_model": LOCAL_MODEL, "embedding_dim": LOCAL_DIMENSION}
    else:
        model = {"embedding_model": f"hash-{update.get('embedding_dim', base.embedding_dim)}"}
    return base.model_copy(
        update={
            "database_url": with_database(base.database_url, database),
            "redis_url": base.redis_url.rsplit("/", 1)[0] + "/" + redis_db,
            "embedder": embedder,
            **model,
            "log_level": "WARNING",
            **update,
        }
    )


def _checked_name(settings: Settings, expected: str) -> str:
    name = database_name(settings.database_url)
    if name != expected:
        raise SystemExit(f"refusing to touch {name!r}: not the benchmark's {expected!r}")
    return name


async def _admin(settings: Settings) -> asyncpg.Connection:
    return await asyncpg.connect(asyncpg_dsn(with_database(settings.database_url, "postgres")))


def recreate_and_migrate(settings: Settings, expected: str) -> None:
    """Drop, create and migrate the benchmark database (sync: Alembic runs its own loop);
    refuses any database but ``expected``."""
    name = _checked_name(settings, expected)

    async def recreate() -> None:
        conn = await _admin(settings)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()

    asyncio.run(recreate())
    run_upgrade(settings)


def create_and_migrate(settings: Settings, expected: str) -> None:
    """Create the benchmark database if it is missing, keep it otherwise, and migrate it;
    refuses any database but ``expected``."""
    name = _checked_name(settings, expected)

    async def create() -> None:
        conn = await _admin(settings)
        try:
            if not await conn.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
                await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()

    asyncio.run(create())
    run_upgrade(settings)

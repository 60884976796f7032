"""A benchmark's own database: the stack's settings pointed at it, and a fresh migrated copy."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg

from kenning.settings import EmbedderKind, Settings
from kenning.storage.db.database_url import asyncpg_dsn, database_name, with_database
from kenning.storage.db.migrate import run_upgrade


def own_settings(database: str, redis_db: str, **update: Any) -> Settings:
    """The stack's settings (env overrides honoured) on ``database`` and Redis db
    ``redis_db``, with the hash embedder unless ``update`` says otherwise."""
    base = Settings()
    return base.model_copy(
        update={
            "database_url": with_database(base.database_url, database),
            "redis_url": base.redis_url.rsplit("/", 1)[0] + "/" + redis_db,
            "embedder": EmbedderKind.HASH,
            "embedding_model": f"hash-{base.embedding_dim}",
            **update,
        }
    )


def recreate_and_migrate(settings: Settings, expected: str) -> None:
    """Drop, create and migrate the benchmark database (sync: Alembic runs its own loop);
    refuses any database but ``expected``."""
    name = database_name(settings.database_url)
    if name != expected:
        raise SystemExit(f"refusing to recreate {name!r}: not the benchmark's {expected!r}")

    async def recreate() -> None:
        conn = await asyncpg.connect(asyncpg_dsn(with_database(settings.database_url, "postgres")))
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()

    asyncio.run(recreate())
    run_upgrade(settings)

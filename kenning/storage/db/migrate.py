"""Run Alembic programmatically with Kenning's settings; say which revisions ran.

`run_upgrade` and `run_downgrade` return the revisions they applied or rolled back, read
from the database before and after (the version table is the truth, not a log), so
``kenning migrate`` can print them. An upgrade also records the model the configured
embedder reports, which is what the server compares at start, while no vectors are stored.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import pool, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from kenning.settings import Settings
from kenning.storage.db.database_url import sqlalchemy_url
from kenning.storage.embedders.factory import create_embedder

_ROOT = Path(__file__).resolve().parents[3]


@dataclass(frozen=True, slots=True)
class Revision:
    """One migration: its id and the first paragraph of its docstring."""

    id: str
    message: str


@dataclass(frozen=True, slots=True)
class Migrated:
    """What a run did: the revisions applied (oldest first) or rolled back (newest first),
    and the revision the database is at now (None: nothing applied).

    ``embedder_model``: what the configured embedder reports (upgrades only).
    ``recorded_model``: the embedding model this run recorded (None: the record was already
    right). ``conflicting_model``: the recorded model kept although the embedder reports
    another, because vectors of it are stored (the server will refuse to start).
    """

    revisions: list[Revision]
    current: str | None
    embedder_model: str | None = None
    recorded_model: str | None = None
    conflicting_model: str | None = None


def alembic_config(settings: Settings) -> Config:
    """An Alembic config bound to ``settings`` (URL, graph name, embedding dimension)."""
    config = Config(str(_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(_ROOT / "migrations"))
    config.attributes["settings"] = settings
    return config


def head_revision(settings: Settings) -> str:
    """The newest revision the code knows."""
    head = ScriptDirectory.from_config(alembic_config(settings)).get_current_head()
    assert head is not None, "the migrations folder has no revision"
    return head


def current_revision(settings: Settings) -> str | None:
    """The revision the database is at; None for a database never migrated.

    Raises the driver's error when the database cannot be reached or does not exist.
    """

    def read(connection: Connection) -> str | None:
        return MigrationContext.configure(connection).get_current_revision()

    async def main() -> str | None:
        engine = create_async_engine(sqlalchemy_url(settings.database_url), poolclass=pool.NullPool)
        try:
            async with engine.connect() as connection:
                return await connection.run_sync(read)
        finally:
            await engine.dispose()

    # Sync like Alembic's own commands: the environment runs its own event loop.
    return asyncio.run(main())


def run_upgrade(settings: Settings, revision: str = "head") -> Migrated:
    """Apply migrations up to ``revision``, then record the configured embedder's model."""
    config = alembic_config(settings)
    # First, so a misconfigured embedder stops the run before anything changes.
    model = embedder_model(settings)
    before = current_revision(settings)
    command.upgrade(config, revision)
    after = current_revision(settings)
    applied = list(reversed(_between(config, upper=after, lower=before)))
    if after is None:
        return Migrated(applied, after, model)
    stored, now = asyncio.run(_record_model(settings, model))
    # A new database's record is new even when the migration wrote the same name.
    recorded = now if now != stored or before is None else None
    return Migrated(applied, after, model, recorded, now if now != model else None)


def embedder_model(settings: Settings) -> str:
    """The model name the configured embedder reports (``hash-384`` for the hash embedder).

    Raises ``ConfigurationError`` when the embedder settings do not fit together.
    """
    embedder = create_embedder(settings)
    asyncio.run(embedder.aclose())
    return embedder.model


async def _record_model(settings: Settings, model: str) -> tuple[str | None, str | None]:
    """Record ``model`` unless vectors are stored: they came from the recorded one and do
    not compare with another's. Returns the record before and after."""
    engine = create_async_engine(sqlalchemy_url(settings.database_url), poolclass=pool.NullPool)
    try:
        async with engine.begin() as connection:
            stored = (
                await connection.execute(
                    text("SELECT value FROM kenning_meta WHERE key = 'embedding_model' FOR UPDATE")
                )
            ).scalar_one_or_none()
            if stored is None or stored == model:
                return stored, stored
            if (await connection.execute(text("SELECT EXISTS (SELECT 1 FROM chunks)"))).scalar():
                return stored, stored
            await connection.execute(
                text("UPDATE kenning_meta SET value = :model WHERE key = 'embedding_model'"),
                {"model": model},
            )
            return stored, model
    finally:
        await engine.dispose()


def run_downgrade(settings: Settings, revision: str) -> Migrated:
    """Roll migrations back to ``revision`` (``base`` removes everything)."""
    config = alembic_config(settings)
    before = current_revision(settings)
    command.downgrade(config, revision)
    after = current_revision(settings)
    return Migrated(_between(config, upper=before, lower=after), after)


def _between(config: Config, *, upper: str | None, lower: str | None) -> list[Revision]:
    """Revisions above ``lower`` up to and including ``upper``, newest first."""
    if upper is None or upper == lower:
        return []
    script = ScriptDirectory.from_config(config)
    return [
        Revision(item.revision, " ".join(item.doc.split()))
        for item in script.iterate_revisions(upper, lower or "base")
    ]

"""Run Alembic programmatically with Kenning's settings; say which revisions ran.

`run_upgrade` and `run_downgrade` return the revisions they applied or rolled back, read
from the database before and after (the version table is the truth, not a log), so
``kenning migrate`` can print them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import pool
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from kenning.settings import Settings
from kenning.storage.database_url import sqlalchemy_url

_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True, slots=True)
class Revision:
    """One migration: its id and the first paragraph of its docstring."""

    id: str
    message: str


@dataclass(frozen=True, slots=True)
class Migrated:
    """What a run did: the revisions applied (oldest first) or rolled back (newest first),
    and the revision the database is at now (None: nothing applied)."""

    revisions: list[Revision]
    current: str | None


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
    """Apply migrations up to ``revision``."""
    config = alembic_config(settings)
    before = current_revision(settings)
    command.upgrade(config, revision)
    after = current_revision(settings)
    return Migrated(list(reversed(_between(config, upper=after, lower=before))), after)


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

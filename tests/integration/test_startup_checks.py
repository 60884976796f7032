"""The server refuses to start, saying what to do, when the database does not fit."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from kenning.app import preflight
from kenning.domain.errors import ConfigurationError
from kenning.settings import Settings
from kenning.storage.database_url import asyncpg_dsn, with_database
from kenning.storage.migrate import run_upgrade
from tests.conftest import recreate_database

pytestmark = pytest.mark.integration

DATABASE = "kenning_test_startup"


@pytest.fixture
def fresh(test_settings: Settings) -> Settings:
    url = with_database(test_settings.database_url, DATABASE)
    asyncio.run(recreate_database(url, DATABASE))
    return test_settings.model_copy(update={"database_url": url})


async def _execute(settings: Settings, sql: str) -> None:
    conn = await asyncpg.connect(asyncpg_dsn(settings.database_url))
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def test_empty_database_asks_for_migrate(fresh: Settings) -> None:
    with pytest.raises(ConfigurationError, match="kenning migrate"):
        asyncio.run(preflight(fresh))


def test_migrated_database_passes(fresh: Settings) -> None:
    run_upgrade(fresh, "head")
    asyncio.run(preflight(fresh))


def test_schema_behind_asks_for_migrate(fresh: Settings) -> None:
    run_upgrade(fresh, "head")
    asyncio.run(_execute(fresh, "UPDATE alembic_version SET version_num = '0000'"))
    with pytest.raises(ConfigurationError, match=r"revision 0000 .* run `kenning migrate`"):
        asyncio.run(preflight(fresh))


def test_missing_extension_is_named(fresh: Settings) -> None:
    run_upgrade(fresh, "head")
    asyncio.run(_execute(fresh, "DROP EXTENSION vector CASCADE"))
    with pytest.raises(ConfigurationError, match="kenning migrate"):
        asyncio.run(preflight(fresh))


def test_other_embedding_dimension_is_refused(fresh: Settings) -> None:
    run_upgrade(fresh, "head")
    other = fresh.model_copy(update={"embedding_dim": 768})
    with pytest.raises(ConfigurationError, match=r"384-dimensional .* configured for 768"):
        asyncio.run(preflight(other))


def test_unreachable_database_says_so(fresh: Settings) -> None:
    gone = fresh.model_copy(update={"database_url": "postgresql://postgres@127.0.0.1:1/none"})
    with pytest.raises(ConfigurationError, match="cannot connect to PostgreSQL"):
        asyncio.run(preflight(gone))

"""The test database of this run and the helpers that (re)create databases on the stack."""

from __future__ import annotations

import os

import asyncpg

from kenning.settings import Settings
from kenning.storage.db.database_url import asyncpg_dsn, with_database

# Several runs on one machine (a developer's and CI's) each set their own database.
TEST_DATABASE = os.environ.get("KENNING_TEST_DATABASE", "kenning_test")


def base_settings() -> Settings:
    """Settings for the stack the test command provisioned (env overrides honoured)."""
    return Settings(log_json=False)


async def recreate_database(admin_url: str, name: str) -> None:
    """Drop and create ``name`` on the server of ``admin_url``."""
    conn = await asyncpg.connect(asyncpg_dsn(with_database(admin_url, "postgres")))
    try:
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()

"""Migration 0028 on a database holding a graph: every property of every vertex becomes the
current first version of its history (recorded by the migration, no source, no observed
time; the scope and identity properties are none), and a downgrade drops the history."""

from __future__ import annotations

import asyncio
import json

import asyncpg
import pytest

from kenning.settings import Settings
from kenning.storage.db.database_url import asyncpg_dsn, with_database
from kenning.storage.db.migrate import run_downgrade, run_upgrade
from tests.support.database import TEST_DATABASE, recreate_database

pytestmark = pytest.mark.integration

DATABASE = f"{TEST_DATABASE}_node_versions"
VERTICES = [
    {
        "key": "service:billing",
        "type": "service",
        "client": "acme",
        "project": "web",
        "group": "",
        "owner": "team:billing",
        "tier": 1,
        "tags": ["pci"],
    },
    {"key": "user:ann", "type": "user", "client": "", "project": "", "group": ""},
]


@pytest.fixture
def settings(test_settings: Settings) -> Settings:
    url = with_database(test_settings.database_url, DATABASE)
    asyncio.run(recreate_database(url, DATABASE))
    return test_settings.model_copy(update={"database_url": url})


async def _run(url: str, sql: str, *args: object) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(asyncpg_dsn(url))
    try:
        return list(await conn.fetch(sql, *args))
    finally:
        await conn.close()


def test_0028_makes_every_existing_property_its_first_version(settings: Settings) -> None:
    url, graph = settings.database_url, settings.graph_name
    run_upgrade(settings, "0027")
    for vertex in VERTICES:
        insert = f'INSERT INTO {graph}."Entity" (properties) VALUES ($1::text::ag_catalog.agtype)'
        asyncio.run(_run(url, insert, json.dumps(vertex)))

    run_upgrade(settings, "head")
    rows = asyncio.run(
        _run(
            url,
            """
        SELECT client_id, project_id, group_id, node_key, name, value::text AS value, source,
               changed_by, observed_at, ended_at IS NULL AS current
        FROM node_property_versions ORDER BY seq""",
        )
    )
    assert [(r["node_key"], r["name"], json.loads(r["value"])) for r in rows] == [
        ("service:billing", "owner", "team:billing"),
        ("service:billing", "tags", ["pci"]),
        ("service:billing", "tier", 1),
    ]
    assert {
        (
            r["client_id"],
            r["project_id"],
            r["group_id"],
            r["source"],
            r["changed_by"],
            r["observed_at"],
            r["current"],
        )
        for r in rows
    } == {("acme", "web", "", None, "migration-0028", None, True)}

    run_downgrade(settings, "0027")
    left = asyncio.run(_run(url, "SELECT to_regclass('node_property_versions') AS t"))
    assert left[0]["t"] is None

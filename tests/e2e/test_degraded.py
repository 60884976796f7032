"""Degraded, never silent: a real server with Redis or PostgreSQL gone, and back."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.database_url import asyncpg_dsn
from kenning.storage.db.pool import create_pool
from tests.support.redis_process import RedisProcess
from tests.support.server_process import Server, free_port, start_server, stop_server
from tests.support.tcp_relay import TcpRelay
from tests.support.ws_client import ws_subscribe

pytestmark = pytest.mark.e2e

HEALTH = "{ health { status postgres redis parts { name up detail } } }"
QUEUE = """subscription { queueStatus(first: 50) {
  degraded resynced counts { status lane count } queued { sourceUrn position }
  changes { status } } }"""
REQUEST = """mutation($input: IngestInput!, $identity: IngestionIdentityInput!) {
  requestIngestion(input: $input, identity: $identity) { __typename } }"""


async def new_key(settings: Settings, role: Role = Role.AGENT) -> str:
    pool = await create_pool(settings, min_size=1)
    try:
        key, _ = await PgApiKeys(pool).create(Scope("degraded"), role, "degraded test")
        return key
    finally:
        await pool.close()


async def gql(server: Server, query: str, **variables: Any) -> httpx.Response:
    async with httpx.AsyncClient(timeout=30) as client:
        return await client.post(
            f"{server.url}/graphql",
            json={"query": query, "variables": variables},
            headers=server.headers,
        )


async def request(server: Server, urn: str) -> None:
    doc = {"sourceUrn": urn, "kind": "note", "content": f"Queued while testing: {urn}."}
    identity = {"sourceKind": "test", "contentVersion": "1"}
    answer = (await gql(server, REQUEST, input=doc, identity=identity)).json()
    assert answer["data"]["requestIngestion"]["__typename"] == "IngestionHandle", answer


def total(update: dict[str, Any]) -> int:
    return sum(count["count"] for count in update["counts"])


async def until(
    stream: AsyncIterator[dict[str, Any]], wanted: Any, within: float = 15
) -> dict[str, Any]:
    """The first queueStatus update for which ``wanted(update)`` holds."""

    async def scan() -> dict[str, Any]:
        async for data in stream:
            if wanted(data["queueStatus"]):
                return dict(data["queueStatus"])
        raise AssertionError("the subscription ended")

    return await asyncio.wait_for(scan(), within)


async def start(settings: Settings, log: Path, **env: str) -> tuple[Any, Server]:
    # In a thread: the relays of these tests run on this event loop.
    process, server = await asyncio.to_thread(start_server, settings, log, **env)
    return process, server.with_key(await new_key(settings))


async def test_redis_unreachable_degrades_health_and_queue_status_visibly(
    migrated_settings: Settings, tmp_path: Path
) -> None:
    closed = f"redis://127.0.0.1:{free_port()}/0"
    process, server = await start(migrated_settings, tmp_path / "s.log", KENNING_REDIS_URL=closed)
    try:
        health = (await gql(server, HEALTH)).json()["data"]["health"]
        assert (health["status"], health["redis"]) == ("DEGRADED", None)
        assert health["postgres"].startswith("17.")
        redis = next(part for part in health["parts"] if part["name"] == "redis")
        assert not redis["up"] and redis["detail"].startswith("unreachable")
        async with httpx.AsyncClient() as client:
            ready = (await client.get(f"{server.url}/readyz")).json()
        assert ready["status"] == "degraded" and ready["parts"]["redis"].startswith("unreachable")

        stream = ws_subscribe(server.ws_url, server.headers, QUEUE)
        loop = asyncio.get_running_loop()
        began = loop.time()
        first = await until(stream, lambda u: True, within=5)
        assert first["degraded"] is True
        assert loop.time() - began < 2.0, "the degraded snapshot must come at once"
        before = total(first)
        await request(server, "urn:while-redis-is-away")
        polled = await until(stream, lambda u: total(u) > before, within=10)
        assert polled["degraded"] is True and polled["changes"] == []
        await stream.aclose()
    finally:
        stop_server(process)


async def test_stopping_and_starting_redis_goes_degraded_then_live_again(
    migrated_settings: Settings, tmp_path: Path
) -> None:
    redis = RedisProcess(migrated_settings)
    redis.start()
    process, server = await start(
        migrated_settings, tmp_path / "s.log", KENNING_REDIS_URL=redis.url
    )
    try:
        stream = ws_subscribe(server.ws_url, server.headers, QUEUE)
        live = await until(stream, lambda u: True)
        assert live["degraded"] is False
        redis.stop()
        before = total(await until(stream, lambda u: u["degraded"]))
        await request(server, "urn:during-the-outage")
        await until(stream, lambda u: u["degraded"] and total(u) > before)
        redis.start()
        healed = await until(stream, lambda u: not u["degraded"])
        assert healed["resynced"] is True
        # Live again: the next job arrives as a change event, not only in a snapshot.
        await request(server, "urn:after-the-outage")
        changed = await until(stream, lambda u: u["changes"])
        assert changed["degraded"] is False and changed["changes"][0]["status"] == "QUEUED"
        await stream.aclose()
    finally:
        stop_server(process)
        redis.stop()


async def test_postgres_down_answers_a_graphql_shaped_503_naming_it(
    migrated_settings: Settings, tmp_path: Path
) -> None:
    dsn = httpx.URL(asyncpg_dsn(migrated_settings.database_url))
    relay = TcpRelay(dsn.host, dsn.port or 5432)
    await relay.start()
    through = str(dsn.copy_with(host="127.0.0.1", port=relay.port))
    process, server = await start(
        migrated_settings, tmp_path / "s.log", KENNING_DATABASE_URL=through
    )
    try:
        assert (await gql(server, "{ viewer { role } }")).status_code == 200  # key now cached
        unseen = server.with_key(await new_key(migrated_settings))
        await relay.stop()
        refused = await gql(unseen, "{ viewer { role } }")
        assert refused.status_code == 503 and refused.headers["retry-after"]
        [error] = refused.json()["errors"]
        assert error["message"] == "PostgreSQL is unavailable; try again shortly"
        assert error["extensions"]["code"] == "SERVICE_UNAVAILABLE"
        assert error["extensions"]["part"] == "postgres"
        failed = await gql(server, '{ search(query: "x", mode: KEYWORD) { __typename } }')
        assert failed.status_code == 503
        assert failed.json()["errors"][0]["extensions"]["part"] == "postgres"
        health = (await gql(server, HEALTH)).json()["data"]["health"]
        assert (health["status"], health["postgres"]) == ("DOWN", None)
        async with httpx.AsyncClient() as client:
            assert (await client.get(f"{server.url}/readyz")).status_code == 503
        await relay.start()
        back = await gql(unseen, "{ viewer { role } }")
        assert back.status_code == 200, back.text
    finally:
        await relay.stop()
        stop_server(process)

"""A revoked key stops working in every server process at once, its websockets too."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import httpx
import pytest
import websockets

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.pool import create_pool
from tests.support.server_process import Server, create_key, server_env, start_server, stop_server

pytestmark = pytest.mark.e2e

VIEWER = "{ viewer { role } }"
QUEUE = "subscription { queueStatus(first: 5) { workersAlive } }"
REVOKE = "mutation R($id: ID!) { revokeApiKey(id: $id) { __typename } }"


@pytest.fixture(scope="module")
def two_servers(
    migrated_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Server, Server]]:
    logs = tmp_path_factory.mktemp("revocation")
    first_process, first = start_server(migrated_settings, logs / "a.log")
    try:
        second_process, second = start_server(migrated_settings, logs / "b.log")
    except BaseException:
        stop_server(first_process)
        raise
    yield first, second
    stop_server(second_process)
    stop_server(first_process)


async def new_key(settings: Settings) -> tuple[str, str]:
    pool = await create_pool(settings, min_size=1)
    try:
        text, info = await PgApiKeys(pool).create(Scope("acme"), Role.AGENT, "revocation")
        return text, info.id
    finally:
        await pool.close()


async def status(client: httpx.AsyncClient, server: Server, key: str) -> int:
    answer = await client.post(
        f"{server.url}/graphql",
        json={"query": VIEWER},
        headers={"Authorization": f"Bearer {key}"},
    )
    return answer.status_code


async def revoked_within(
    second: Server, key: str, revoke: Callable[[], Awaitable[None]]
) -> tuple[float, float, int | None]:
    """Seconds until the second server refuses the key, until its socket closes, and
    the close code, timed from the end of ``revoke``."""
    async with (
        httpx.AsyncClient(timeout=5) as client,
        websockets.connect(second.ws_url, subprotocols=["graphql-transport-ws"]) as ws,  # type: ignore[list-item]
    ):
        auth = {"Authorization": f"Bearer {key}"}
        await ws.send(json.dumps({"type": "connection_init", "payload": auth}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": QUEUE}}))
        assert json.loads(await asyncio.wait_for(ws.recv(), 10))["type"] == "next"
        # The second server now holds the key's authentication in its cache.
        assert await status(client, second, key) == 200

        await revoke()
        revoked_at = time.perf_counter()

        async def closed() -> tuple[float, int | None]:
            try:
                while True:
                    await ws.recv()
            except websockets.ConnectionClosed as error:
                code = error.rcvd.code if error.rcvd is not None else None
                return time.perf_counter() - revoked_at, code

        async def refused() -> float:
            for _ in range(500):  # polled: the server has no way to tell the client
                if await status(client, second, key) == 401:
                    return time.perf_counter() - revoked_at
                await asyncio.sleep(0.02)
            raise AssertionError("the key still works after 10 s")

        (socket_after, code), http_after = await asyncio.wait_for(
            asyncio.gather(closed(), refused()), 10
        )
    return http_after, socket_after, code


async def test_a_key_revoked_through_one_server_stops_at_once_in_another(
    migrated_settings: Settings, two_servers: tuple[Server, Server]
) -> None:
    first, second = two_servers
    admin = await create_key(migrated_settings, Scope(), Role.ADMIN)
    key, key_id = await new_key(migrated_settings)

    async def revoke() -> None:
        async with httpx.AsyncClient(timeout=10) as client:
            answer = await client.post(
                f"{first.url}/graphql",
                json={"query": REVOKE, "variables": {"id": key_id}},
                headers={"Authorization": f"Bearer {admin}"},
            )
        assert answer.json()["data"]["revokeApiKey"]["__typename"] == "RevokeApiKeySuccess"

    http_after, socket_after, code = await revoked_within(second, key, revoke)
    assert code == 4403
    assert http_after < 1.0, f"the other server accepted the key for {http_after:.2f} s"
    assert socket_after < 1.0, f"the websocket stayed open for {socket_after:.2f} s"


async def test_a_key_revoked_by_the_cli_stops_at_once_in_a_running_server(
    migrated_settings: Settings, two_servers: tuple[Server, Server], tmp_path: Path
) -> None:
    _, second = two_servers
    key, key_id = await new_key(migrated_settings)

    async def revoke() -> None:
        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "kenning", "keys", "revoke", key_id],
            env=server_env(migrated_settings, 0),
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr.decode()
        assert b"Redis is unreachable" not in done.stderr

    http_after, socket_after, code = await revoked_within(second, key, revoke)
    assert code == 4403
    assert http_after < 1.0, f"the server accepted the key for {http_after:.2f} s"
    assert socket_after < 1.0, f"the websocket stayed open for {socket_after:.2f} s"

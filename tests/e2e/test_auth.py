"""API keys over real HTTP and websockets: no key, bad key, roles and scopes."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
import websockets

from kenning.domain.access.principal import Role, key_hash
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.pool import create_pool
from tests.support.server_process import Server, create_key, start_server, stop_server

pytestmark = pytest.mark.e2e

INGEST = """mutation($input: IngestInput!) { ingest(input: $input) {
  __typename ... on ScopeError { message } ... on IngestSuccess { status } } }"""


def post(server: Server, query: str, key: str | None, **variables: object) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    return httpx.post(
        f"{server.url}/graphql",
        json={"query": query, "variables": variables},
        headers=headers,
        timeout=10,
    )


def key(settings: Settings, scope: Scope, role: Role) -> str:
    return asyncio.run(create_key(settings, scope, role))


def test_no_key_and_a_wrong_key_are_401(server: Server) -> None:
    assert post(server, "{ health { redis } }", None).status_code == 401
    assert post(server, "{ health { redis } }", "kn_not-a-real-key").status_code == 401


def test_a_ui_key_reads_but_cannot_write(server: Server, migrated_settings: Settings) -> None:
    ui = key(migrated_settings, Scope("acme"), Role.UI)
    assert post(server, "{ health { redis } }", ui).status_code == 200
    doc = {"sourceUrn": "doc:ui", "kind": "note", "content": "Hello."}
    result = post(server, INGEST, ui, input=doc).json()["data"]["ingest"]
    assert result["__typename"] == "ScopeError"
    assert "only read" in result["message"]


def test_an_agent_writes_in_its_scope_and_may_not_widen_it(
    server: Server, migrated_settings: Settings
) -> None:
    agent = key(migrated_settings, Scope("acme", "web", "front"), Role.AGENT)
    doc = {"sourceUrn": "doc:agent", "kind": "note", "content": "Agent note."}
    ok = post(server, INGEST, agent, input=doc).json()["data"]["ingest"]
    assert ok == {"__typename": "IngestSuccess", "status": "INDEXED"}
    widened = {**doc, "scope": {"clientId": "acme"}}
    result = post(server, INGEST, agent, input=widened).json()["data"]["ingest"]
    assert result["__typename"] == "ScopeError"
    other = {**doc, "scope": {"clientId": "globex", "projectId": "web", "groupId": "front"}}
    result = post(server, INGEST, agent, input=other).json()["data"]["ingest"]
    assert result["__typename"] == "ScopeError"


def test_revoked_key_is_refused(migrated_settings: Settings, tmp_path: Path) -> None:
    secret = key(migrated_settings, Scope("acme"), Role.UI)

    async def revoke() -> None:
        pool = await create_pool(migrated_settings, min_size=1)
        try:
            keys = PgApiKeys(pool)
            info = await keys.get_by_hash(key_hash(secret))
            assert info is not None
            await keys.revoke(info.id)
        finally:
            await pool.close()

    asyncio.run(revoke())
    # A fresh server process (no cached authentication) refuses the key at once.
    process, fresh = start_server(migrated_settings, tmp_path / "server.log")
    try:
        assert post(fresh, "{ health { redis } }", secret).status_code == 401
    finally:
        stop_server(process)


async def test_websocket_needs_a_key_in_connection_init(server: Server) -> None:
    async with websockets.connect(server.ws_url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    async with websockets.connect(server.ws_url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        await ws.send(
            json.dumps(
                {"type": "connection_init", "payload": {"Authorization": f"Bearer {server.key}"}}
            )
        )
        assert json.loads(await ws.recv())["type"] == "connection_ack"

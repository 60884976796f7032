"""A real server process over HTTP and websockets."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import websockets

from kenning.settings import Settings
from kenning.storage.db.migrate import head_revision
from tests.support.server_process import Server, free_port, server_env

pytestmark = pytest.mark.e2e

HEALTH = """{ health { status postgres age pgvector redis kenning schemaRevision
  parts { name up version detail } } }"""


def test_health_over_http(working_server: Server, migrated_settings: Settings) -> None:
    server = working_server  # every part ok, the workers included
    response = httpx.post(
        f"{server.url}/graphql", json={"query": HEALTH}, headers=server.headers, timeout=10
    )
    assert response.status_code == 200
    health = response.json()["data"]["health"]
    assert health["postgres"].startswith("17.")
    assert health["age"] == "1.5.0"
    assert health["pgvector"].startswith("0.8")
    assert health["redis"].split(".")[0].isdigit()
    assert health["schemaRevision"] == head_revision(migrated_settings)
    assert health["status"] == "OK"
    assert [(p["name"], p["up"], p["detail"]) for p in health["parts"]] == [
        (name, True, "ok")
        for name in ("postgres", "age", "pgvector", "redis", "embedder", "workers")
    ]


def test_probes_and_metrics(working_server: Server) -> None:
    server = working_server  # every part ok, the workers included
    assert httpx.get(f"{server.url}/healthz").json() == {"status": "alive"}
    ready = httpx.get(f"{server.url}/readyz").json()
    parts = ("postgres", "age", "pgvector", "redis", "embedder", "workers")
    assert ready["status"] == "ready" and ready["parts"] == dict.fromkeys(parts, "ok")
    # Each model's state beside the parts, whatever it is: it never makes a server unready.
    assert set(ready) == {"status", "parts", "models"}
    assert set(ready["models"]) == {"structure", "extract", "vision"}
    metrics = httpx.get(f"{server.url}/metrics").text
    assert 'kenning_http_requests_total{method="GET",path="/readyz",status="200"}' in metrics


async def test_subscription_over_graphql_transport_ws(server: Server) -> None:
    query = "subscription { heartbeat(count: 3, intervalMs: 10) { seq } }"
    async with websockets.connect(server.ws_url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": server.headers}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": query}}))
        seqs = []
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == "next":
                seqs.append(message["payload"]["data"]["heartbeat"]["seq"])
            elif message["type"] == "complete":
                break
            elif message["type"] != "ping":
                pytest.fail(f"unexpected message {message}")
    assert seqs == [1, 2, 3]


async def test_subscription_over_legacy_graphql_ws(server: Server) -> None:
    query = "subscription { heartbeat(count: 2, intervalMs: 10) { seq } }"
    async with websockets.connect(server.ws_url, subprotocols=["graphql-ws"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": server.headers}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        await ws.send(json.dumps({"id": "1", "type": "start", "payload": {"query": query}}))
        seqs = []
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == "data":
                seqs.append(message["payload"]["data"]["heartbeat"]["seq"])
            elif message["type"] == "complete":
                break
    assert seqs == [1, 2]


async def test_typed_errors_reach_the_client_with_their_message(server: Server) -> None:
    query = "subscription { heartbeat(count: 0) { seq } }"
    async with websockets.connect(server.ws_url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": server.headers}))
        await ws.recv()
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": query}}))
        message = json.loads(await ws.recv())
    assert message["type"] in ("next", "error")
    errors = message["payload"]["errors"] if message["type"] == "next" else message["payload"]
    assert errors[0]["message"] == "count must be 1..1000"


def test_serve_refuses_another_embedding_dimension(
    migrated_settings: Settings, tmp_path: Path
) -> None:
    env = server_env(migrated_settings, free_port(), KENNING_EMBEDDING_DIM="768")
    result = subprocess.run(
        [sys.executable, "-m", "kenning", "serve"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "KENNING_EMBEDDING_DIM=384" in result.stderr

"""A minimal GraphQL-over-websocket client for both protocols Kenning speaks."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import Any

import websockets

TRANSPORT_WS = "graphql-transport-ws"
LEGACY_WS = "graphql-ws"


async def ws_subscribe(
    url: str,
    headers: dict[str, str],
    query: str,
    variables: dict[str, Any] | None = None,
    protocol: str = TRANSPORT_WS,
    max_messages: int = 10_000,
) -> AsyncGenerator[dict[str, Any], None]:
    """Each result's ``data`` until the server completes the operation."""
    async with websockets.connect(url, subprotocols=[protocol], max_size=2**24) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": headers}))
        ack = json.loads(await ws.recv())
        if ack["type"] != "connection_ack":
            raise ConnectionRefusedError(ack)
        start = "subscribe" if protocol == TRANSPORT_WS else "start"
        payload = {"query": query, "variables": variables or {}}
        await ws.send(json.dumps({"id": "1", "type": start, "payload": payload}))
        for _ in range(max_messages):
            message = json.loads(await ws.recv())
            kind = message["type"]
            if kind in ("next", "data"):
                if message["payload"].get("errors"):
                    raise AssertionError(message["payload"]["errors"])
                yield message["payload"]["data"]
            elif kind == "complete":
                return
            elif kind == "error":
                raise AssertionError(message["payload"])
            elif kind == "ping":
                await ws.send(json.dumps({"type": "pong"}))
        raise AssertionError(f"more than {max_messages} messages")

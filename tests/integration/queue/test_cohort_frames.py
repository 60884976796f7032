"""queueStatus cohorts over real websockets (the whole app under uvicorn): members that keep up
are written the one shared frame directly, byte for byte what Strawberry's path sends but for
the id; laggards and late joiners get their own; closing, completing and revoking one member
touches no other; tenants never share."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
import websockets
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute

from kenning.app import create_app
from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.graphql.subscriptions.sharing import SubscriptionFanOut
from kenning.graphql.view import CohortGraphQL
from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.support.graphql_api import Api
from tests.support.queue_api import agent, request
from tests.support.ws_client import LEGACY_WS, TRANSPORT_WS

pytestmark = pytest.mark.integration

RAW_QUEUE = "subscription { queueStatus(first: 5) { changes { jobId status } } }"


def queue_app(settings: Settings) -> Starlette:
    """The whole app with no queue workers (a job stays QUEUED)."""
    return create_app(settings.model_copy(update={"queue_workers": 0}))


def fan_out_of(app: Starlette) -> SubscriptionFanOut:
    """What the subscribers of ``app``'s /graphql share (its view's)."""
    [view] = [
        route.endpoint
        for route in app.routes
        if isinstance(route, WebSocketRoute) and route.path == "/graphql"
    ]
    assert isinstance(view, CohortGraphQL)
    return view.fan_out


@contextlib.asynccontextmanager
async def serving(settings: Settings) -> AsyncIterator[str]:
    """The whole app under uvicorn in this loop (no workers: a job stays QUEUED); its ws URL."""
    async with serving_app(queue_app(settings)) as url:
        yield url


@contextlib.asynccontextmanager
async def serving_app(app: Starlette) -> AsyncIterator[str]:
    """``app`` under uvicorn in this loop; its ws URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", loop="asyncio"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(200):
        if server.started:
            break
        await asyncio.sleep(0.05)
    try:
        yield f"ws://127.0.0.1:{sock.getsockname()[1]}/graphql"
    finally:
        server.should_exit = True
        async with asyncio.timeout(15):
            await task


class Socket:
    """One websocket with subscriptions on it; ``frames`` are raw ``next``/``data`` texts."""

    def __init__(self, ws: Any, protocol: str) -> None:
        self.ws, self.protocol = ws, protocol

    @classmethod
    async def open(cls, url: str, key: str, protocol: str = TRANSPORT_WS) -> Socket:
        ws = await websockets.connect(url, subprotocols=[protocol])  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": auth(key)}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        return cls(ws, protocol)

    async def subscribe(self, op_id: str, query: str = RAW_QUEUE) -> str:
        start = "subscribe" if self.protocol == TRANSPORT_WS else "start"
        await self.ws.send(json.dumps({"id": op_id, "type": start, "payload": {"query": query}}))
        return await self.frame()  # the first snapshot

    async def frame(self) -> str:
        while True:
            raw = await asyncio.wait_for(self.ws.recv(), 10)
            if json.loads(raw)["type"] not in ("ka", "ping", "pong"):
                return str(raw)

    async def change(self) -> str:
        """The next frame that carries a change."""
        for _ in range(10):
            raw = await self.frame()
            message = json.loads(raw)
            assert message["type"] in ("next", "data"), message
            if message["payload"]["data"]["queueStatus"]["changes"]:
                return raw
        raise AssertionError("no change arrived")


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def ids_of(raw: str) -> list[str]:
    return [c["jobId"] for c in json.loads(raw)["payload"]["data"]["queueStatus"]["changes"]]


async def queue_job(api: Api, urn: str) -> str:
    return str((await request(api, urn))["jobId"])


async def test_members_get_one_frame_byte_identical_but_for_the_id(
    queue_settings: Settings, qruntime: Runtime
) -> None:
    key, _ = await qruntime.api_keys.create(Scope("acme"), Role.AGENT)
    other_key, _ = await qruntime.api_keys.create(Scope("acme"), Role.AGENT)
    app = queue_app(queue_settings)
    fan_out = fan_out_of(app)
    direct_frames, encoded_payloads = fan_out.direct_frames, fan_out.encoded_payloads
    async with serving_app(app) as url:
        one, two = await Socket.open(url, key), await Socket.open(url, other_key)
        legacy = await Socket.open(url, key, LEGACY_WS)
        await one.subscribe("1")
        await two.subscribe('a"b\u00e9')
        await legacy.subscribe("9")
        sent, encodings = direct_frames.sent, encoded_payloads.encodings
        job = await queue_job(Api(qruntime, agent("acme")), "urn:frames")
        first, second, slow = await one.change(), await two.change(), await legacy.change()
        # Written directly (no per-event Strawberry path), encoded once for all three.
        assert direct_frames.sent - sent == 2
        assert encoded_payloads.encodings - encodings == 1
        assert ids_of(first) == [job]
        assert first.startswith('{"id":"1","type":"next","payload":')
        assert second == first.replace('"1"', json.dumps('a"b\u00e9'), 1)
        # The legacy protocol's slow path sends the very same bytes around its own id/type.
        assert slow == first.replace('"id":"1","type":"next"', '"id":"9","type":"data"', 1)
        for sock in (one, two, legacy):
            await sock.ws.close()


async def test_a_late_joiner_and_a_laggard_get_their_own_correct_updates(
    queue_settings: Settings, qruntime: Runtime
) -> None:
    key, _ = await qruntime.api_keys.create(Scope("acme"), Role.AGENT)
    acme = Api(qruntime, agent("acme"))
    async with serving(queue_settings) as url:
        member, laggard = await Socket.open(url, key), await Socket.open(url, key)
        await member.subscribe("1")
        await laggard.subscribe("1")
        expected = []
        for n in range(3):
            expected.append(await queue_job(acme, f"urn:lag-{n}"))
            assert ids_of(await member.change()) == [expected[-1]]
        # The laggard read nothing meanwhile: it gets every change, none twice, in order.
        missed: list[str] = []
        while len(missed) < 3:
            missed += ids_of(await laggard.change())
        assert missed == expected
        late = await Socket.open(url, key)
        snapshot = json.loads(await late.subscribe("7"))
        assert snapshot["payload"]["data"]["queueStatus"]["changes"] == []
        job = await queue_job(acme, "urn:after-late")
        assert ids_of(await late.change()) == ids_of(await member.change()) == [job]
        for sock in (member, laggard, late):
            await sock.ws.close()


async def test_closing_or_completing_one_member_leaves_the_others(
    queue_settings: Settings, qruntime: Runtime
) -> None:
    key, _ = await qruntime.api_keys.create(Scope("acme"), Role.AGENT)
    acme = Api(qruntime, agent("acme"))
    async with serving(queue_settings) as url:
        stays, closes, completes = [await Socket.open(url, key) for _ in range(3)]
        for sock in (stays, closes, completes):
            await sock.subscribe("1")
        await closes.ws.close()
        await completes.ws.send(json.dumps({"id": "1", "type": "complete"}))
        job = await queue_job(acme, "urn:after-close")
        assert ids_of(await stays.change()) == [job]
        # "complete" ends the operation: nothing more is sent for it.
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(completes.frame(), 1.5)
        await stays.ws.close()
        await completes.ws.close()


async def test_two_tenants_never_share_a_frame(queue_settings: Settings, qruntime: Runtime) -> None:
    acme_key, _ = await qruntime.api_keys.create(Scope("acme"), Role.AGENT)
    globex_key, _ = await qruntime.api_keys.create(Scope("globex"), Role.AGENT)
    async with serving(queue_settings) as url:
        acme, globex = await Socket.open(url, acme_key), await Socket.open(url, globex_key)
        await acme.subscribe("1")
        await globex.subscribe("1")
        mine = await queue_job(Api(qruntime, agent("acme")), "urn:acme-frame")
        theirs = await queue_job(Api(qruntime, agent("globex")), "urn:globex-frame")
        assert ids_of(await acme.change()) == [mine]
        assert ids_of(await globex.change()) == [theirs]
        await acme.ws.close()
        await globex.ws.close()


async def test_a_revoked_keys_subscription_ends(
    queue_settings: Settings, qruntime: Runtime
) -> None:
    key, info = await qruntime.api_keys.create(Scope("acme"), Role.AGENT)
    kept, _ = await qruntime.api_keys.create(Scope("acme"), Role.AGENT)
    acme = Api(qruntime, agent("acme"))
    async with serving(queue_settings) as url:
        revoked, member = await Socket.open(url, key), await Socket.open(url, kept)
        await revoked.subscribe("1")
        await member.subscribe("1")
        await queue_job(acme, "urn:before-revoke")
        await revoked.change()
        await member.change()
        await qruntime.api_keys.revoke_everywhere(info.id)
        with pytest.raises(websockets.ConnectionClosed) as closed:
            for _ in range(20):
                await asyncio.wait_for(revoked.ws.recv(), 10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
        job = await queue_job(acme, "urn:after-revoke")
        assert ids_of(await member.change()) == [job]
        await member.ws.close()

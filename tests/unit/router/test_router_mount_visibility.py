"""``router_mounts(router_app, identify=...)``: backend URLs and session names in
``/router/status`` only for global admin keys; the standalone router shows them to everyone."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.router import RouterSettings, create_router_app
from kenning.router.http.bodies import DEFAULT_MAX_BODY_BYTES
from kenning.router.http.control import public_event
from kenning.router_mount import router_mounts

CPU_URL = "http://127.0.0.1:9"  # never called: these tests do not start the router
SESSION = "agent-7 of client acme"
CALLERS = {
    "admin": Principal("root", Scope(), Role.ADMIN),
    "acme-admin": Principal("acme-admin", Scope("acme"), Role.ADMIN),
    "agent": Principal("agent", Scope("acme"), Role.AGENT),
    "ui": Principal("ui", Scope("acme"), Role.UI),
}


async def caller_named_by_header(request: Request) -> Principal | None:
    return CALLERS.get(request.headers.get("x-test-role", ""))


@pytest.fixture
def router_app() -> Starlette:
    return create_router_app(RouterSettings(cpu_backend=CPU_URL), redis_url=None)


async def status_of(app: Starlette, path: str, **headers: str) -> dict[str, Any]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://kenning") as http:
        announce = path.replace("status", "announce")
        await http.post(announce, json={"session": SESSION}, headers={"x-test-role": "agent"})
        answer = await http.get(path, headers=headers)
    assert answer.status_code == 200
    body: dict[str, Any] = answer.json()
    return body


@pytest.fixture
async def parent(router_app: Starlette) -> AsyncIterator[Starlette]:
    yield Starlette(
        routes=router_mounts(
            router_app, identify=caller_named_by_header, max_body_bytes=DEFAULT_MAX_BODY_BYTES
        )
    )


async def test_an_admin_sees_backend_urls_and_session_names(parent: Starlette) -> None:
    status = await status_of(parent, "/router/status", **{"x-test-role": "admin"})
    assert [b["url"] for b in status["backends"]] == [CPU_URL]
    assert SESSION in status["leases"]
    announced = [e for e in status["recent_events"] if e["kind"] == "announce"]
    assert announced[-1]["session"] == SESSION


async def test_anyone_else_sees_the_same_status_without_them(parent: Starlette) -> None:
    status = await status_of(parent, "/router/status", **{"x-test-role": "ui"})
    assert [(b["name"], b["url"]) for b in status["backends"]] == [("cpu", None)]
    assert list(status["leases"]) == ["hidden-1"]
    assert SESSION not in str(status)
    announced = [e for e in status["recent_events"] if e["kind"] == "announce"]
    assert announced[-1]["session"] is None
    assert status["mode"] == "cpu-only"


async def test_a_client_admin_key_does_not_see_them(parent: Starlette) -> None:
    status = await status_of(parent, "/router/status", **{"x-test-role": "acme-admin"})
    assert status["backends"][0]["url"] is None
    assert SESSION not in str(status)


async def test_the_standalone_router_shows_them_to_everyone(router_app: Starlette) -> None:
    status = await status_of(router_app, "/router/status")
    assert status["backends"][0]["url"] == CPU_URL
    assert SESSION in status["leases"]


def test_events_streamed_to_non_admins_lose_the_session_name_only() -> None:
    event = {"kind": "announce", "backend": "gpu0", "at": 1.0, "session": SESSION}
    assert public_event(event) == {**event, "session": None}
    health = {"kind": "backend_health", "backend": "gpu0", "at": 1.0, "healthy": False}
    assert public_event(health) == health

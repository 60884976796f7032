"""The router's gate, without a network: what each role may claim, and the shape of every
refusal the mounted router (``router_mounts(identify=...)``) answers."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request

from kenning.domain.access.principal import ANONYMOUS, Principal, Role, bearer_key
from kenning.domain.access.scope import Scope
from kenning.router import OPEN, Access, AccessDenied, Priority, RouterSettings, create_router_app
from kenning.router.http.bodies import DEFAULT_MAX_BODY_BYTES
from kenning.router.scheduling.policy import PriorityDecision, PrioritySource
from kenning.router_mount import access_for, router_mounts

CPU_URL = "http://127.0.0.1:9"  # never called: these tests do not start the router
DOWN = "PostgreSQL is unavailable; try again shortly"
CALLERS = {
    "kn_ui": Principal("ui", Scope("acme"), Role.UI),
    "kn_agent": Principal("agent", Scope("acme"), Role.AGENT),
    "kn_root": Principal("root", Scope(), Role.ADMIN),
    "kn_acme_admin": Principal("acme-admin", Scope("acme"), Role.ADMIN),
    "kn_anonymous": ANONYMOUS,
}


async def identify(request: Request) -> Principal | None:
    """Keys from ``CALLERS``; ``kn_down`` stands for a key store that cannot answer."""
    key = bearer_key(request.headers.get("authorization"))
    if key == "kn_down":
        raise AccessDenied(503, DOWN, {"Retry-After": "5"})
    return CALLERS.get(key or "")


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    router_app = create_router_app(RouterSettings(cpu_backend=CPU_URL), redis_url=None)
    parent = Starlette(
        routes=router_mounts(router_app, identify=identify, max_body_bytes=DEFAULT_MAX_BODY_BYTES)
    )
    transport = httpx.ASGITransport(app=parent)
    async with httpx.AsyncClient(transport=transport, base_url="http://kenning") as client:
        yield client


def key(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {name}"}


def decision(priority: Priority, source: PrioritySource) -> PriorityDecision:
    return PriorityDecision(priority, source)


def test_each_role_gets_its_access() -> None:
    ui, agent, root, acme_admin = (access_for(CALLERS[k]) for k in list(CALLERS)[:4])
    assert (ui.control, ui.private, ui.top_priority) == (False, False, Priority.CODING)
    assert (agent.control, agent.private, agent.top_priority) == (True, False, Priority.CRITICAL)
    assert (root.control, root.private, root.top_priority) == (True, True, Priority.CRITICAL)
    assert (acme_admin.control, acme_admin.private) == (True, False)  # a client's admin


def test_a_claim_above_the_cap_is_refused_and_a_rule_above_it_is_lowered() -> None:
    ui = access_for(CALLERS["kn_ui"])
    with pytest.raises(AccessDenied) as refused:
        ui.claim(decision(Priority.CRITICAL, PrioritySource.HEADER))
    assert refused.value.status == 403
    assert refused.value.message == (
        "priority 0 needs an agent or admin key (this key has role ui): "
        "send X-Ollama-Priority 1, 2 or 3"
    )
    ruled = ui.claim(decision(Priority.CRITICAL, PrioritySource.RULE))
    assert ruled == decision(Priority.CODING, PrioritySource.RULE)
    for allowed in (Priority.CODING, Priority.BACKGROUND):
        assert ui.claim(decision(allowed, PrioritySource.HEADER)).priority is allowed
    assert OPEN.claim(decision(Priority.CRITICAL, PrioritySource.HEADER)).priority == 0
    background_only = Access(top_priority=Priority.BACKGROUND, who="w", needs="n")
    with pytest.raises(AccessDenied, match=r"send X-Ollama-Priority 3$"):
        background_only.claim(decision(Priority.VISION, PrioritySource.HEADER))


async def test_the_anonymous_principal_is_refused_like_no_key(http: httpx.AsyncClient) -> None:
    for path in ("/router/status", "/ollama/api/tags"):
        answer = await http.get(path, headers=key("kn_anonymous"))
        assert answer.status_code == 401
        assert answer.json()["error"] == "the API key is not valid (unknown or revoked)"
        assert answer.headers["www-authenticate"] == 'Bearer realm="kenning", error="invalid_token"'


async def test_a_key_store_that_cannot_answer_is_a_503_in_each_shape(
    http: httpx.AsyncClient,
) -> None:
    control = await http.post("/router/announce", json={}, headers=key("kn_down"))
    assert control.status_code == 503 and control.headers["retry-after"] == "5"
    assert control.json() == {"error": DOWN, "code": "SERVICE_UNAVAILABLE"}
    model = await http.post("/ollama/api/chat", json={}, headers=key("kn_down"))
    assert model.status_code == 503 and model.json() == {"error": DOWN}


async def test_a_refusal_comes_before_the_body_is_read(http: httpx.AsyncClient) -> None:
    # A caller without a key learns nothing from its body: not even that it is malformed.
    answer = await http.post("/ollama/api/generate", content=b"{not json")
    assert answer.status_code == 401
    bad = await http.post("/ollama/api/generate", content=b"{not json", headers=key("kn_ui"))
    assert bad.status_code == 400 and "invalid request body" in bad.json()["error"]


async def test_a_ui_key_is_told_why_it_may_not_announce(http: httpx.AsyncClient) -> None:
    answer = await http.post("/router/release", json={"session": "s"}, headers=key("kn_ui"))
    assert answer.status_code == 403
    assert answer.json() == {
        "error": "/router/release needs an agent or admin key (this key has role ui)",
        "code": "FORBIDDEN",
    }

"""The router mounted in ``kenning serve`` takes the API keys /graphql takes: no key, no
model calls and no control; announce and release need an agent or admin key; a ui key may
not claim priority 0."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import httpx
import ollama
import pytest

from kenning.domain.access.principal import Role
from kenning.router import Priority, PriorityRuleSpec
from kenning.settings import Settings
from tests.fakes.ollama import FakeFactory
from tests.support.kenning_stack import (
    EMBED_MODEL,
    Kenning,
    fake_backend,
    kenning_settings,
    routed,
    running_kenning,
    state_prefix,
)
from tests.support.router_harness import ORCHESTRATOR_MODEL

pytestmark = pytest.mark.integration

BAD_KEY = {"Authorization": "Bearer kn_not-a-key-anyone-was-given"}
MESSAGES = [{"role": "user", "content": "hi"}]
GENERATE = {"model": ORCHESTRATOR_MODEL, "prompt": "hi", "stream": False}
CONTROL = [
    ("POST", "/router/announce"),
    ("POST", "/router/release"),
    ("GET", "/router/status"),
    ("GET", "/router/metrics"),
    ("GET", "/router/events"),
]
OLLAMA = [
    ("POST", "/ollama/api/generate"),
    ("POST", "/ollama/api/chat"),
    ("POST", "/ollama/api/embed"),
    ("POST", "/ollama/api/embeddings"),
    ("GET", "/ollama/api/tags"),
    ("GET", "/ollama/api/ps"),
    ("POST", "/ollama/api/show"),
    ("GET", "/ollama/api/version"),
    ("POST", "/ollama/api/pull"),
]


@pytest.fixture
async def kenning(
    fake_ollama_factory: FakeFactory, routed_settings: Settings, routed_pool: asyncpg.Pool
) -> AsyncIterator[Kenning]:
    """Kenning with the router over a fake GPU and CPU; the orchestrator model's rule says
    priority 0. ``allow_anonymous`` is on: it opens global reads, never the router."""
    dims = routed_settings.embedding_dim
    gpu = fake_backend(fake_ollama_factory, "gpu0", dims, vram_mb=1200, load_time=0.05)
    cpu = fake_backend(fake_ollama_factory, "cpu", dims)
    async with state_prefix(routed_settings.redis_url) as prefix:
        rules = [PriorityRuleSpec(pattern=ORCHESTRATOR_MODEL, priority=Priority.CRITICAL)]
        router = routed(gpu, cpu, prefix, priority_rules=rules)
        settings = kenning_settings(routed_settings, router, allow_anonymous=True)
        async with running_kenning(settings, routed_pool) as running:
            await running.settled()
            yield running


async def call(kenning: Kenning, method: str, path: str, **headers: str) -> httpx.Response:
    body = {"session": "intruder", **GENERATE} if method == "POST" else None
    return await kenning.http.request(method, path, json=body, headers=headers)


async def gpu_state(kenning: Kenning) -> tuple[str, list[str]]:
    status = (await kenning.http.get("/router/status", headers=kenning.auth(Role.ADMIN))).json()
    announced = [e["session"] for e in status["recent_events"] if e["kind"] == "announce"]
    return status["backends"][0]["holds"], announced


def requests_counted(metrics: str, priority: str) -> float:
    head = f'kenning_router_requests_total{{backend="gpu0",outcome="ok",priority="{priority}"}} '
    lines = [line for line in metrics.splitlines() if line.startswith(head)]
    return float(lines[0].split()[-1]) if lines else 0.0


async def test_without_a_valid_key_the_control_endpoints_answer_401(kenning: Kenning) -> None:
    for headers, message in (({}, "no API key"), (BAD_KEY, "not valid")):
        for method, path in CONTROL:
            answer = await call(kenning, method, path, **headers)
            assert answer.status_code == 401, (path, answer.text)
            body = answer.json()
            assert body["code"] == "UNAUTHENTICATED" and message in body["error"], (path, body)
            assert answer.headers["www-authenticate"].startswith('Bearer realm="kenning"')
    # The anonymous announce changed nothing: the GPU keeps the background set.
    assert await gpu_state(kenning) == ("background", [])


async def test_without_a_valid_key_the_ollama_api_answers_401_in_its_shape(
    kenning: Kenning,
) -> None:
    for headers in ({}, BAD_KEY):
        for method, path in OLLAMA:
            answer = await call(kenning, method, path, **headers)
            assert answer.status_code == 401, (path, answer.text)
            assert list(answer.json()) == ["error"], (path, answer.text)
            assert "API key" in answer.json()["error"]
    # None of them reached a backend: the router counted no model request at all.
    metrics = await kenning.http.get("/router/metrics", headers=kenning.auth(Role.ADMIN))
    assert "kenning_router_requests_total{" not in metrics.text
    # Ollama answers its root to anyone; it says nothing but "Ollama is running".
    assert (await kenning.http.get("/ollama/")).text == "Ollama is running"


async def test_announce_and_release_need_an_agent_or_admin_key(kenning: Kenning) -> None:
    ui = kenning.auth(Role.UI)
    for path in ("/router/announce", "/router/release"):
        refused = await kenning.http.post(path, json={"session": "ui-chat"}, headers=ui)
        assert refused.status_code == 403, refused.text
        assert refused.json()["code"] == "FORBIDDEN"
        assert "agent or admin" in refused.json()["error"]
    assert await gpu_state(kenning) == ("background", [])
    for role in (Role.AGENT, Role.ADMIN):
        session = {"session": f"{role}-chat"}
        ready = await kenning.http.post(
            "/router/announce", json=session, headers=kenning.auth(role)
        )
        assert ready.status_code == 200 and ready.json()["status"] == "ready", ready.text
        released = await kenning.http.post(
            "/router/release", json=session, headers=kenning.auth(role)
        )
        assert released.json()["status"] == "released"
    assert (await gpu_state(kenning))[1] == ["agent-chat", "admin-chat"]


async def test_every_role_reads_status_metrics_and_the_models(kenning: Kenning) -> None:
    for role in Role:
        headers = kenning.auth(role)
        status = await kenning.http.get("/router/status", headers=headers)
        assert status.status_code == 200 and status.json()["mode"] == "single-gpu"
        urls = [backend["url"] for backend in status.json()["backends"]]
        assert (None not in urls) is (role is Role.ADMIN)  # global admin keys only
        metrics = await kenning.http.get("/router/metrics", headers=headers)
        assert "kenning_router_" in metrics.text
        tags = await kenning.http.get("/ollama/api/tags", headers=headers)
        assert ORCHESTRATOR_MODEL in [m["name"] for m in tags.json()["models"]]
        embedded = await kenning.http.post(
            "/ollama/api/embed", json={"model": EMBED_MODEL, "input": "x"}, headers=headers
        )
        assert embedded.status_code == 200, embedded.text


async def test_a_ui_key_may_not_claim_priority_0(kenning: Kenning) -> None:
    ui = kenning.auth(Role.UI)
    refused = await kenning.http.post(
        "/ollama/api/generate", json=GENERATE, headers={**ui, "X-Ollama-Priority": "0"}
    )
    assert refused.status_code == 403
    assert refused.json() == {
        "error": "priority 0 needs an agent or admin key (this key has role ui): "
        "send X-Ollama-Priority 1, 2 or 3"
    }
    for claim in ("critical", " 0 "):
        named = await kenning.http.post(
            "/ollama/api/generate", json=GENERATE, headers={**ui, "X-Ollama-Priority": claim}
        )
        assert named.status_code == 403
    assert await gpu_state(kenning) == ("background", [])  # no P0 claim reached the GPU

    # A model whose rule says 0 runs at 1 for a ui key (it claimed nothing): on the GPU,
    # without taking it from background work.
    ruled = await kenning.http.post("/ollama/api/generate", json=GENERATE, headers=ui)
    assert ruled.status_code == 200 and ruled.headers["x-kenning-backend"] == "gpu0"
    explicit = await kenning.http.post(
        "/ollama/api/generate", json=GENERATE, headers={**ui, "X-Ollama-Priority": "1"}
    )
    assert explicit.status_code == 200
    metrics = (await kenning.http.get("/router/metrics", headers=ui)).text
    assert requests_counted(metrics, "1") == 2 and requests_counted(metrics, "0") == 0
    assert (await gpu_state(kenning))[0] == "background"

    for role in (Role.AGENT, Role.ADMIN):
        p0 = {**kenning.auth(role), "X-Ollama-Priority": "0"}
        claimed = await kenning.http.post("/ollama/api/generate", json=GENERATE, headers=p0)
        assert claimed.status_code == 200 and claimed.headers["x-kenning-backend"] == "gpu0"
    metrics = (await kenning.http.get("/router/metrics", headers=ui)).text
    assert requests_counted(metrics, "0") == 2
    assert (await gpu_state(kenning))[0] == "orchestrator"  # P0 took the GPU


async def test_the_ollama_client_sends_the_key_through_its_headers(kenning: Kenning) -> None:
    def client(**headers: str) -> ollama.AsyncClient:
        transport = httpx.ASGITransport(app=kenning.app)
        options: dict[str, Any] = {"transport": transport, "headers": headers}
        return ollama.AsyncClient(host="http://kenning/ollama", **options)

    keyed = client(Authorization=f"Bearer {kenning.keys[Role.AGENT]}")
    reply = await keyed.chat(model=ORCHESTRATOR_MODEL, messages=MESSAGES)
    assert reply.message.content
    with pytest.raises(ollama.ResponseError) as refused:
        await client().chat(model=ORCHESTRATOR_MODEL, messages=MESSAGES)
    assert refused.value.status_code == 401
    assert "no API key" in refused.value.error

"""Endpoints the router does not proxy answer in Ollama's error shape, so the official
client raises a ``ResponseError`` that says what to do, standalone and mounted."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import ollama
import pytest
from starlette.applications import Starlette
from starlette.requests import Request

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.router import RouterSettings, create_router_app
from kenning.router.http.bodies import DEFAULT_MAX_BODY_BYTES
from kenning.router_mount import router_mounts

DIRECT = "call the backend directly (an operator finds its URL in /router/status)"


async def an_agent(_: Request) -> Principal:
    return Principal("agent", Scope("acme"), Role.AGENT)


@pytest.fixture
def router_app() -> Starlette:
    return create_router_app(RouterSettings(cpu_backend="http://127.0.0.1:9"), redis_url=None)


@pytest.fixture
async def http(router_app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=router_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://router") as client:
        yield client


async def test_model_management_through_the_ollama_client_is_refused_with_501(
    router_app: Starlette,
) -> None:
    client = ollama.AsyncClient(host="http://router", transport=httpx.ASGITransport(app=router_app))
    calls = {
        "/api/pull": client.pull("llama3.2:1b"),
        "/api/push": client.push("me/llama"),
        "/api/delete": client.delete("llama3.2:1b"),
        "/api/copy": client.copy("llama3.2:1b", "mine"),
        "/api/create": client.create("mine", from_="llama3.2:1b"),
    }
    for path, call in calls.items():
        with pytest.raises(ollama.ResponseError) as refused:
            await call
        assert refused.value.status_code == 501
        assert refused.value.error == f"the Kenning router does not proxy {path}: {DIRECT}"


async def test_blobs_and_the_openai_api_get_501_in_ollama_shape(http: httpx.AsyncClient) -> None:
    for method, path in [
        ("POST", "/api/blobs/sha256:abc"),
        ("HEAD", "/api/blobs/sha256:abc"),
        ("POST", "/v1/chat/completions"),
    ]:
        answer = await http.request(method, path)
        assert answer.status_code == 501
        if method != "HEAD":
            assert answer.json() == {"error": f"the Kenning router does not proxy {path}: {DIRECT}"}


async def test_an_unknown_api_path_is_404_and_a_wrong_method_405(http: httpx.AsyncClient) -> None:
    unknown = await http.post("/api/frobnicate", json={})
    assert unknown.status_code == 404
    assert unknown.json() == {
        "error": "unknown endpoint /api/frobnicate: the Kenning router does not proxy it; " + DIRECT
    }
    wrong = await http.get("/api/generate")
    assert wrong.status_code == 405
    assert wrong.json() == {"error": "GET /api/generate is not allowed: use POST"}
    assert wrong.headers["allow"] == "POST"


async def test_mounted_under_ollama_the_answers_name_the_full_path(router_app: Starlette) -> None:
    parent = Starlette(
        routes=router_mounts(router_app, identify=an_agent, max_body_bytes=DEFAULT_MAX_BODY_BYTES)
    )
    transport = httpx.ASGITransport(app=parent)
    async with httpx.AsyncClient(transport=transport, base_url="http://kenning") as http:
        pulled = await http.post("/ollama/api/pull", json={"model": "x"})
        unknown = await http.get("/ollama/api/nothing")
    assert pulled.status_code == 501
    assert pulled.json()["error"] == f"the Kenning router does not proxy /ollama/api/pull: {DIRECT}"
    assert unknown.status_code == 404
    assert unknown.json()["error"].startswith("unknown endpoint /ollama/api/nothing")

"""The router mounted inside a parent app: Ollama API under /ollama, control under /router."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from starlette.applications import Starlette
from starlette.routing import Mount

from kenning.router import control_routes, create_router_app, router_lifespan, router_of
from kenning.router.demo import fake_embedding, normalized
from tests.fakes.ollama import FakeFactory
from tests.support.router_harness import BACKGROUND_MODEL, router_settings


async def test_mounted_under_prefixes(fake_ollama_factory: FakeFactory) -> None:
    gpu = fake_ollama_factory("gpu0")
    cpu = fake_ollama_factory("cpu")
    router_app = create_router_app(router_settings([gpu], cpu))
    router = router_of(router_app)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with router_lifespan(router_app):  # Starlette skips a mounted app's lifespan
            yield

    parent = Starlette(
        routes=[Mount("/ollama", app=router_app), Mount("/router", routes=control_routes(router))],
        lifespan=lifespan,
    )
    async with parent.router.lifespan_context(parent):
        transport = httpx.ASGITransport(app=parent)
        async with httpx.AsyncClient(transport=transport, base_url="http://kenning") as http:
            answer = await http.post(
                "/ollama/api/embed", json={"model": BACKGROUND_MODEL, "input": "mounted"}
            )
            assert answer.json()["embeddings"] == [normalized(fake_embedding("mounted", 16))]
            status = (await http.get("/router/status")).json()
            assert [b["name"] for b in status["backends"]] == ["gpu0", "cpu"]
            assert (await http.get("/ollama/api/version")).json() == {"version": "0.12.0"}

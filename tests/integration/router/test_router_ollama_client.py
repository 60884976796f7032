"""The official `ollama` client works against the router unchanged."""

from __future__ import annotations

import asyncio

import httpx
import ollama

from kenning.router.demo import fake_embedding, fake_tokens, normalized
from tests.fakes.ollama import FakeFactory
from tests.support.router_harness import (
    BACKGROUND_MODEL,
    ORCHESTRATOR_MODEL,
    RouterFactory,
    router_settings,
)


async def test_generate_chat_embed_streaming_and_not(
    fake_ollama_factory: FakeFactory, router_factory: RouterFactory
) -> None:
    gpu = fake_ollama_factory("gpu0", token_latency=0.001)
    cpu = fake_ollama_factory("cpu")
    running = await router_factory(router_settings([gpu], cpu))
    client = ollama.AsyncClient(host=running.url, headers={"X-Ollama-Priority": "0"})
    expected = "".join(fake_tokens("why is the sky blue", 8))

    answer = await client.generate(model=ORCHESTRATOR_MODEL, prompt="why is the sky blue")
    assert answer.response == expected and answer.done and answer.eval_count == 8

    parts = [
        p
        async for p in await client.generate(
            model=ORCHESTRATOR_MODEL, prompt="why is the sky blue", stream=True
        )
    ]
    assert "".join(p.response or "" for p in parts) == expected
    assert parts[-1].done and parts[-1].done_reason == "stop" and len(parts) == 9

    messages = [{"role": "user", "content": "hello there"}]
    reply = await client.chat(model=ORCHESTRATOR_MODEL, messages=messages)
    assert reply.message.content == "".join(fake_tokens("hello there", 8))
    chunks = [
        c async for c in await client.chat(model=ORCHESTRATOR_MODEL, messages=messages, stream=True)
    ]
    assert "".join(c.message.content or "" for c in chunks) == reply.message.content

    embedded = await client.embed(model=BACKGROUND_MODEL, input=["alpha", "beta"])
    assert embedded.embeddings == [normalized(fake_embedding(t, 16)) for t in ("alpha", "beta")]
    legacy = await client.embeddings(model=BACKGROUND_MODEL, prompt="alpha")
    assert list(legacy.embedding) == fake_embedding("alpha", 16)  # never normalized

    assert gpu.count("/api/generate", ORCHESTRATOR_MODEL) >= 2  # P0 ran on the GPU


async def test_sync_client_and_catalogue(
    fake_ollama_factory: FakeFactory, router_factory: RouterFactory
) -> None:
    gpu = fake_ollama_factory("gpu0")
    cpu = fake_ollama_factory("cpu")
    running = await router_factory(router_settings([gpu], cpu))

    def use_sync_client() -> tuple[str, list[str], list[str], str]:
        client = ollama.Client(host=running.url)
        text = client.generate(model=ORCHESTRATOR_MODEL, prompt="hi", stream=False).response or ""
        tags = [m.model or "" for m in client.list().models]
        shown = client.show(BACKGROUND_MODEL)
        running_models = [m.model or "" for m in client.ps().models]
        return text, tags, running_models, str(shown.capabilities)

    text, tags, loaded, capabilities = await asyncio.to_thread(use_sync_client)
    assert text == "".join(fake_tokens("hi", 8))
    assert ORCHESTRATOR_MODEL in tags and BACKGROUND_MODEL in tags
    assert "embedding" in capabilities
    assert loaded  # the generation left a model resident somewhere

    async with httpx.AsyncClient(base_url=running.url) as http:
        tags_body = (await http.get("/api/tags")).json()
        entry = next(m for m in tags_body["models"] if m["name"] == ORCHESTRATOR_MODEL)
        assert sorted(entry["backends"]) == ["cpu", "gpu0"]
        ps_body = (await http.get("/api/ps")).json()
        assert all(m["backend"] in ("gpu0", "cpu") for m in ps_body["models"])
        assert (await http.get("/api/version")).json() == {"version": "0.12.0"}
        missing = await http.post("/api/generate", json={"model": "nope", "prompt": "x"})
        assert missing.status_code == 404 and "not found" in missing.json()["error"]

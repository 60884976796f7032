"""The router in real processes: `kenning router` alone, and `kenning serve` configured with
KENNING_ROUTER_* variables (mounted at /ollama and /router, embedding Kenning's ingests)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import ollama
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.router.demo import FakeOllama, fake_embedding, fake_tokens, normalized
from kenning.settings import Settings
from tests.fakes.ollama import FakeFactory
from tests.support.kenning_stack import EMBED_MODEL, fake_backend
from tests.support.router_harness import ORCHESTRATOR_MODEL
from tests.support.server_process import (
    create_key,
    free_port,
    server_env,
    start_server,
    stop_server,
)
from tests.support.ws_client import ws_subscribe

pytestmark = pytest.mark.e2e


def router_env(gpu: FakeOllama, cpu: FakeOllama) -> dict[str, str]:
    return {
        "KENNING_ROUTER_GPU_BACKENDS": json.dumps(
            [{"name": "gpu0", "url": gpu.url, "vram_budget_mb": 8000}]
        ),
        "KENNING_ROUTER_CPU_BACKEND": cpu.url,
        "KENNING_ROUTER_ORCHESTRATOR_MODELS": json.dumps([ORCHESTRATOR_MODEL]),
        "KENNING_ROUTER_BACKGROUND_MODELS": json.dumps([EMBED_MODEL]),
        "KENNING_ROUTER_HEALTH_INTERVAL_SECONDS": "0.5",
    }


def start_router(
    factory: FakeFactory, settings: Settings, log: Path, *flags: str
) -> tuple[subprocess.Popen[bytes], str]:
    """`kenning router` on a free port in front of two fakes, and its URL."""
    dims = settings.embedding_dim
    gpu = fake_backend(factory, "gpu0", dims)
    cpu = fake_backend(factory, "cpu", dims)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KENNING_")}
    env.update(router_env(gpu, cpu), KENNING_LOG_JSON="false")
    command = ["router", "--port", str(port), "--redis-url", "none", *flags]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "kenning", *command],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    return process, f"http://127.0.0.1:{port}"


@pytest.fixture
def standalone(
    fake_ollama_factory: FakeFactory,
    routed_settings: Settings,
    tmp_path: Path,
) -> Iterator[str]:
    """`kenning router --allow-anonymous` in front of two fakes; yields its URL."""
    log = tmp_path / "router.log"
    process, url = start_router(fake_ollama_factory, routed_settings, log, "--allow-anonymous")
    try:
        deadline = time.monotonic() + 20
        while True:
            assert process.poll() is None, log.read_text()
            try:
                if httpx.get(f"{url}/router/status", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        assert "warning: anonymous callers may control the router" in log.read_text()
        yield url
    finally:
        stop_server(process)


def test_kenning_router_refuses_to_start_without_allow_anonymous(
    fake_ollama_factory: FakeFactory,
    routed_settings: Settings,
    tmp_path: Path,
) -> None:
    log = tmp_path / "router.log"
    process, url = start_router(fake_ollama_factory, routed_settings, log)
    try:
        assert process.wait(timeout=30) == 2
    finally:
        stop_server(process)
    assert "kenning router takes no API keys" in log.read_text()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{url}/router/status", timeout=1)


def test_kenning_router_serves_any_ollama_client(standalone: str) -> None:
    client = ollama.Client(host=standalone, headers={"X-Ollama-Priority": "0"})
    answer = client.generate(model=ORCHESTRATOR_MODEL, prompt="hello")
    assert answer.response == "".join(fake_tokens("hello", 8))
    streamed = "".join(
        part.response or "" for part in client.generate(ORCHESTRATOR_MODEL, "hello", stream=True)
    )
    assert streamed == answer.response
    embedded = ollama.Client(host=standalone).embed(model=EMBED_MODEL, input="alpha")
    dims = len(embedded.embeddings[0])
    assert embedded.embeddings == [normalized(fake_embedding("alpha", dims))]
    status = httpx.get(f"{standalone}/router/status").json()
    assert [b["name"] for b in status["backends"]] == ["gpu0", "cpu"]
    assert status["state_store"] == "memory"
    assert "kenning_router_requests_total" in httpx.get(f"{standalone}/router/metrics").text


INGEST = """mutation($input: IngestInput!) { ingest(input: $input) { __typename } }"""
EVENTS = "subscription { routerEvents(kinds: [ANNOUNCE]) { kind backend session } }"


async def test_serve_mounts_the_router_and_embeds_through_it(
    fake_ollama_factory: FakeFactory,
    routed_settings: Settings,
    tmp_path: Path,
) -> None:
    dims = routed_settings.embedding_dim
    gpu = fake_backend(fake_ollama_factory, "gpu0", dims)
    cpu = fake_backend(fake_ollama_factory, "cpu", dims)
    process, server = start_server(routed_settings, tmp_path / "serve.log", **router_env(gpu, cpu))
    try:
        server = server.with_key(await create_key(routed_settings, Scope(), Role.ADMIN))
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:
            doc = {
                "sourceUrn": "doc:e2e-router",
                "kind": "note",
                "content": "routed",
                "priority": 2,
            }
            answer = await http.post(
                "/graphql",
                json={"query": INGEST, "variables": {"input": doc}},
                headers=server.headers,
            )
            assert answer.json()["data"]["ingest"]["__typename"] == "IngestSuccess"
            assert gpu.count("/api/embed", EMBED_MODEL, outcome="ok") >= 1

            messages = [{"role": "user", "content": "hi"}]
            client = ollama.AsyncClient(host=f"{server.url}/ollama", headers=server.headers)
            reply = await client.chat(model=ORCHESTRATOR_MODEL, messages=messages)
            assert reply.message.content == "".join(fake_tokens("hi", 8))
            anonymous = ollama.AsyncClient(host=f"{server.url}/ollama")
            with pytest.raises(ollama.ResponseError) as refused:
                await anonymous.chat(model=ORCHESTRATOR_MODEL, messages=messages)
            assert refused.value.status_code == 401 and "no API key" in refused.value.error
            intruder = await http.post("/router/announce", json={"session": "intruder"})
            assert intruder.status_code == 401
            metrics = (await http.get("/metrics")).text
            assert 'kenning_router_requests_total{backend="gpu0",outcome="ok",priority="2"}' in (
                metrics
            )
            assert 'path="/ollama/api/chat"' in metrics

            events = ws_subscribe(server.ws_url, server.headers, EVENTS)
            first = asyncio.ensure_future(anext(events))
            for _ in range(40):  # until the subscription is live and sees an announce
                announced = await http.post(
                    "/router/announce", json={"session": "e2e"}, headers=server.headers
                )
                assert announced.json()["status"] == "ready"
                done, _ = await asyncio.wait({first}, timeout=0.25)
                if done:
                    break
            event = await first
            assert event == {
                "routerEvents": {"kind": "ANNOUNCE", "backend": "gpu0", "session": "e2e"}
            }
            await events.aclose()
    finally:
        stop_server(process)


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "kenning", "worker"], env=env, stdout=sink, stderr=sink
        )


REQUEST = """mutation($input: IngestInput!, $identity: IngestionIdentityInput!) {
  requestIngestion(input: $input, identity: $identity) { ... on IngestionHandle { jobId } } }"""
STATUS = "query($id: ID!) { ingestionStatus(jobId: $id) { status lastError } }"


async def test_a_worker_process_embeds_through_a_router_of_its_own(
    fake_ollama_factory: FakeFactory,
    routed_settings: Settings,
    routed_pool: asyncpg.Pool,
    tmp_path: Path,
) -> None:
    dims = routed_settings.embedding_dim
    gpu = fake_backend(fake_ollama_factory, "gpu0", dims)
    cpu = fake_backend(fake_ollama_factory, "cpu", dims)
    # The server queues only (no router, no workers); the worker process does the embedding.
    process, server = start_server(
        routed_settings, tmp_path / "serve.log", KENNING_QUEUE_WORKERS="0"
    )
    env = server_env(
        routed_settings, free_port(), KENNING_QUEUE_IDLE_SECONDS="0.2", **router_env(gpu, cpu)
    )
    worker = start_worker(env, tmp_path / "worker.log")
    try:
        server = server.with_key(await create_key(routed_settings, Scope(), Role.ADMIN))
        async with httpx.AsyncClient(base_url=server.url, timeout=10) as http:

            async def graphql(query: str, **variables: object) -> dict[str, Any]:
                answer = await http.post(
                    "/graphql",
                    json={"query": query, "variables": variables},
                    headers=server.headers,
                )
                data: dict[str, Any] = answer.json()["data"]
                return data

            content = "queued work for the worker's router"
            doc = {"sourceUrn": "doc:e2e-worker", "kind": "note", "content": content, "priority": 5}
            identity = {"sourceKind": "note", "contentVersion": "1"}
            job = (await graphql(REQUEST, input=doc, identity=identity))["requestIngestion"]
            for _ in range(300):
                status = (await graphql(STATUS, id=job["jobId"]))["ingestionStatus"]
                if status["status"] in ("INDEXED", "FAILED"):
                    break
                await asyncio.sleep(0.05)
            assert status == {"status": "INDEXED", "lastError": None}
            # Only the worker's router knows the fake backends: their vector proves the path.
            stored = await routed_pool.fetchval(
                "SELECT embedding::text FROM chunks WHERE source_urn = $1", doc["sourceUrn"]
            )
            assert json.loads(stored) == pytest.approx(normalized(fake_embedding(content, dims)))
            assert (await http.get("/ollama/api/version")).status_code == 404
    finally:
        stop_server(worker)
        stop_server(process)

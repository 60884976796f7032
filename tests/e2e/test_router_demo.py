"""``kenning router demo`` end to end, as docs/router.md walks through it: the demo prints the
environment, ``kenning router`` (or ``kenning serve``) runs with it, and a priority-0
``generate`` from the official ``ollama`` client preempts a running priority-3 one, which
finishes on the CPU backend."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import ollama
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.router.demo import fake_embedding, fake_tokens, normalized
from kenning.settings import EmbedderKind, Settings
from kenning.storage.db.database_url import asyncpg_dsn, with_database
from kenning.storage.db.migrate import run_upgrade
from tests.support.database import TEST_DATABASE, recreate_database
from tests.support.server_process import create_key, free_port, start_server, stop_server

pytestmark = pytest.mark.e2e

TOKENS = 40
READY = "# Serving until Ctrl-C."
P0 = {"X-Ollama-Priority": "0"}
P3 = {"X-Ollama-Priority": "3"}
# Fast enough for a test, slow enough that the P3 generation is still running on the GPU
# (2 s) when the P0 one arrives.
DEMO_COMMAND = ["router", "demo", "--gpu-port", "0", "--cpu-port", "0", "--tokens", str(TOKENS)]
DEMO_COMMAND += ["--token-delay", "0.05", "--cpu-token-delay", "0.01", "--load-time", "0.1"]


@dataclass
class Demo:
    """The running ``kenning router demo`` and the variables it printed."""

    process: subprocess.Popen[str]
    environment: dict[str, str]


def clean_environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KENNING_")}
    return {**env, "KENNING_LOG_JSON": "false", **extra}


def read_exports(process: subprocess.Popen[str]) -> dict[str, str]:
    """The ``export NAME=value`` lines the demo printed, read until it says it is ready."""
    assert process.stdout is not None
    exports: dict[str, str] = {}
    for line in iter(process.stdout.readline, ""):
        if line.strip() == READY:
            return exports
        if line.startswith("export "):
            name, value = shlex.split(line)[1].split("=", 1)
            exports[name] = value
    raise AssertionError(f"the demo exited ({process.wait()}) before printing {READY!r}")


@pytest.fixture
def demo() -> Iterator[Demo]:
    process = subprocess.Popen(
        [sys.executable, "-m", "kenning", *DEMO_COMMAND],
        env=clean_environment(),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        yield Demo(process, read_exports(process))
    finally:
        process.terminate()
        # Ctrl-C and SIGTERM stop the fakes cleanly: exit code 0.
        assert process.wait(timeout=15) == 0


@pytest.fixture
def router_url(demo: Demo, tmp_path: Path) -> Iterator[str]:
    """``kenning router`` with the demo's variables, state kept in its own process."""
    port = free_port()
    log = tmp_path / "router.log"
    # As the README runs it: the router alone takes no keys, on a trusted loopback.
    command = ["router", "--port", str(port), "--redis-url", "none", "--allow-anonymous"]
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "kenning", *command],
            env=clean_environment(**demo.environment),
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: gpu_of(url).get("holds") == "background", log)
        yield url
    finally:
        stop_server(process)


def gpu_of(url: str) -> dict[str, Any]:
    try:
        status = httpx.get(f"{url}/router/status", timeout=1).json()
    except httpx.HTTPError:
        return {}
    gpu: dict[str, Any] = status["backends"][0]
    return gpu if not gpu["swapping"] else {}


def wait_for(condition: Any, log: Path | None = None, within: float = 20) -> None:
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, log.read_text() if log else "condition not met"
        time.sleep(0.02)


def test_the_demo_prints_the_environment_that_routes_through_its_fakes(demo: Demo) -> None:
    env = demo.environment
    (gpu,) = json.loads(env["KENNING_ROUTER_GPU_BACKENDS"])
    assert gpu["name"] == "gpu0" and gpu["vram_budget_mb"] == 8192
    for url in (gpu["url"], env["KENNING_ROUTER_CPU_BACKEND"]):
        assert httpx.get(f"{url}/api/version").json() == {"version": "0.12.0"}
    assert env["KENNING_EMBEDDER"] == "ollama"
    embedded = ollama.Client(host=gpu["url"]).embed(env["KENNING_EMBEDDING_MODEL"], "hello")
    assert len(embedded.embeddings[0]) == int(env["KENNING_EMBEDDING_DIM"]) == 384


def test_a_p0_generate_preempts_a_running_p3_one_which_finishes_on_the_cpu(
    router_url: str,
) -> None:
    background = ollama.Client(host=router_url, headers=P3)
    interactive = ollama.Client(host=router_url, headers=P0)
    answers: dict[str, ollama.GenerateResponse] = {}

    def summarise() -> None:
        answers["p3"] = background.generate(model="qwen2.5:7b", prompt="summarise the backlog")

    job = threading.Thread(target=summarise)
    job.start()
    wait_for(lambda: gpu_of(router_url).get("inflight") == 1)  # the P3 runs on the GPU now
    answer = interactive.generate(model="llama3.2:1b", prompt="plan my day")
    job.join(timeout=30)

    assert answer.response == "".join(fake_tokens("plan my day", TOKENS))
    assert answers["p3"].response == "".join(fake_tokens("summarise the backlog", TOKENS))
    status = httpx.get(f"{router_url}/router/status").json()
    preemptions = [e for e in status["recent_events"] if e["kind"] == "preemption"]
    assert [(e["backend"], e["cancelled"]) for e in preemptions] == [("gpu0", 1)]
    metrics = httpx.get(f"{router_url}/router/metrics").text
    assert 'kenning_router_requests_total{backend="gpu0",outcome="ok",priority="0"} 1.0' in metrics
    assert 'kenning_router_requests_total{backend="cpu",outcome="ok",priority="3"} 1.0' in metrics


def test_a_p3_request_that_was_preempted_says_cpu_in_its_backend_header(router_url: str) -> None:
    with httpx.Client(base_url=router_url, timeout=30) as http:
        body = {"model": "qwen2.5:7b", "prompt": "classify", "stream": False}
        pending: dict[str, httpx.Response] = {}
        job = threading.Thread(
            target=lambda: pending.update(p3=http.post("/api/generate", json=body, headers=P3))
        )
        job.start()
        wait_for(lambda: gpu_of(router_url).get("inflight") == 1)
        first = http.post(
            "/api/generate", json={"model": "llama3.2:1b", "prompt": "hi"}, headers=P0
        )
        job.join(timeout=30)
    assert first.headers["x-kenning-backend"] == "gpu0"
    assert pending["p3"].headers["x-kenning-backend"] == "cpu"
    assert pending["p3"].json()["response"] == "".join(fake_tokens("classify", TOKENS))


async def test_kenning_serve_with_the_demo_environment_embeds_through_the_router(
    demo: Demo, test_settings: Settings, tmp_path: Path
) -> None:
    env = dict(demo.environment)
    name = f"{TEST_DATABASE}_demo"
    url = with_database(test_settings.database_url, name)
    await recreate_database(url, name)
    # Kenning's own variables from the demo's output; the router's go to the process as is.
    settings = test_settings.model_copy(
        update={
            "database_url": url,
            "embedder": EmbedderKind(env.pop("KENNING_EMBEDDER")),
            "embedding_model": env.pop("KENNING_EMBEDDING_MODEL"),
            "embedding_dim": int(env.pop("KENNING_EMBEDDING_DIM")),
        }
    )
    await asyncio.to_thread(run_upgrade, settings)
    process, server = start_server(
        settings, tmp_path / "serve.log", KENNING_EMBEDDING_DIM=str(settings.embedding_dim), **env
    )
    try:
        key = await create_key(settings, Scope(), Role.ADMIN)
        content = "The router demo embeds this note."
        mutation = "mutation($input: IngestInput!) { ingest(input: $input) { __typename } }"
        document = {"sourceUrn": "doc:demo", "kind": "note", "content": content}
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            answer = await http.post(
                "/graphql",
                json={"query": mutation, "variables": {"input": document}},
                headers={"Authorization": f"Bearer {key}"},
            )
        assert answer.json() == {"data": {"ingest": {"__typename": "IngestSuccess"}}}
        # The demo stands in for the structure model too (qwen2.5:7b, its background set).
        structured = await _structure(server.url, key, "Billing stores invoices in Postgres.")
        conn = await asyncpg.connect(asyncpg_dsn(url))
        try:
            stored = await conn.fetchval("SELECT embedding::text FROM chunks")
        finally:
            await conn.close()
        expected = normalized(fake_embedding(content, settings.embedding_dim))
        assert json.loads(stored) == pytest.approx(expected)
        assert structured == {
            "__typename": "StructureKnowledgeSuccess",
            "checkIn": {"model": "qwen2.5:7b"},
        }, structured
    finally:
        stop_server(process)


STRUCTURE = """mutation($text: String!) { structureKnowledge(input: {text: $text, dryRun: true}) {
  __typename ... on StructureKnowledgeSuccess { checkIn { model } } ... on Error { message } } }"""


async def _structure(url: str, key: str, text: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        answer = await http.post(
            "/graphql",
            json={"query": STRUCTURE, "variables": {"text": text}},
            headers={"Authorization": f"Bearer {key}"},
        )
    found: dict[str, Any] = answer.json()["data"]["structureKnowledge"]
    return found

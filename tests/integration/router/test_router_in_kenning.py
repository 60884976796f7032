"""The router mounted in Kenning: ingests with KENNING_EMBEDDER=ollama embed through it, with
the request's priority (bulk jobs as background), and survive a preemption on the GPU."""

from __future__ import annotations

import asyncio
import json
import math
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.router import RouterSettings
from kenning.router.demo import FakeOllama, fake_embedding, normalized
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from tests.fakes.ollama import FakeFactory
from tests.support.kenning_stack import (
    EMBED_MODEL,
    fake_backend,
    gpu_and_cpu,
    kenning_settings,
    routed,
    running_kenning,
    state_prefix,
)
from tests.support.router_harness import ORCHESTRATOR_MODEL, wait_until

pytestmark = pytest.mark.integration

INGEST = """mutation($input: IngestInput!) { ingest(input: $input) {
  __typename ... on IngestSuccess { status chunks { id } } ... on ValidationError { message } } }"""
REQUEST = """mutation($input: IngestInput!, $identity: IngestionIdentityInput!) {
  requestIngestion(input: $input, identity: $identity) {
    __typename ... on IngestionHandle { jobId } } }"""
STATUS = "query($id: ID!) { ingestionStatus(jobId: $id) { status lastError } }"


@pytest.fixture
async def prefix(routed_settings: Settings) -> AsyncIterator[str]:
    async with state_prefix(routed_settings.redis_url) as value:
        yield value


def doc(content: str, priority: int) -> dict[str, Any]:
    return {
        "sourceUrn": f"doc:router:{uuid.uuid4().hex}",
        "kind": "note",
        "content": content,
        "priority": priority,
    }


async def stored_vector(pool: asyncpg.Pool, urn: str) -> list[float]:
    text = await pool.fetchval("SELECT embedding::text FROM chunks WHERE source_urn = $1", urn)
    assert text is not None, f"no chunk stored for {urn}"
    return [float(v) for v in json.loads(text)]


def assert_same_direction(stored: list[float], content: str) -> None:
    expected = normalized(fake_embedding(content, len(stored)))
    cosine = sum(a * b for a, b in zip(stored, expected, strict=True))
    assert math.isclose(cosine, 1.0, abs_tol=1e-4), cosine


def requests_metric(text: str, priority: str, backend: str, outcome: str = "ok") -> float:
    head = (
        f'kenning_router_requests_total{{backend="{backend}",outcome="{outcome}",'
        f'priority="{priority}"}} '
    )
    lines = [line for line in text.splitlines() if line.startswith(head)]
    return float(lines[0].split()[-1]) if lines else 0.0


async def test_ingest_embeds_through_the_router_with_its_priority(
    fake_ollama_factory: FakeFactory,
    routed_settings: Settings,
    routed_pool: asyncpg.Pool,
    prefix: str,
) -> None:
    gpu, cpu, settings = gpu_and_cpu(fake_ollama_factory, routed_settings, prefix)
    async with running_kenning(settings, routed_pool) as kenning:
        await kenning.settled()
        preloads = gpu.count("/api/embed", EMBED_MODEL)
        content = "The router sits between Kenning and every Ollama backend."
        data = doc(content, priority=1)
        result = await kenning.graphql(INGEST, input=data)
        assert result["data"]["ingest"]["__typename"] == "IngestSuccess", result
        assert_same_direction(await stored_vector(routed_pool, data["sourceUrn"]), content)
        assert gpu.count("/api/embed", EMBED_MODEL, outcome="ok") == preloads + 1
        assert cpu.count("/api/embed", EMBED_MODEL) == 0

        metrics = (await kenning.http.get("/metrics")).text
        assert requests_metric(metrics, "1", "gpu0") == 1
        assert 'kenning_http_requests_total{method="POST",path="/graphql",status="200"}' in metrics


async def test_bulk_jobs_embed_as_background_and_priority_jobs_keep_theirs(
    fake_ollama_factory: FakeFactory,
    routed_settings: Settings,
    routed_pool: asyncpg.Pool,
    prefix: str,
) -> None:
    _, _, settings = gpu_and_cpu(fake_ollama_factory, routed_settings, prefix)
    async with running_kenning(settings, routed_pool) as kenning:
        await kenning.settled()
        jobs = {}
        for priority in (7, 2):
            data = doc(f"queued at priority {priority}", priority)
            identity = {"sourceKind": "note", "contentVersion": "1"}
            handle = await kenning.graphql(REQUEST, input=data, identity=identity)
            jobs[priority] = handle["data"]["requestIngestion"]["jobId"]

        async def finished() -> bool:
            for job_id in jobs.values():
                status = await kenning.graphql(STATUS, id=job_id)
                if status["data"]["ingestionStatus"]["status"] != "INDEXED":
                    return False
            return True

        for _ in range(200):
            if await finished():
                break
            await asyncio.sleep(0.05)
        assert await finished(), "queued jobs did not finish"
        metrics = (await kenning.http.get("/metrics")).text
        # Priority 7 (bulk lane) would be refused by the router as is: it runs as 3.
        assert requests_metric(metrics, "3", "gpu0") == 1
        assert requests_metric(metrics, "2", "gpu0") == 1


async def test_preempted_background_ingest_finishes_on_the_cpu(
    fake_ollama_factory: FakeFactory,
    routed_settings: Settings,
    routed_pool: asyncpg.Pool,
    prefix: str,
) -> None:
    dims = routed_settings.embedding_dim
    gpu: FakeOllama = fake_backend(fake_ollama_factory, "gpu0", dims, embed_latency=1.0)
    cpu = fake_backend(fake_ollama_factory, "cpu", dims)
    settings = kenning_settings(routed_settings, routed(gpu, cpu, prefix))
    async with running_kenning(settings, routed_pool) as kenning:
        await kenning.settled()
        contents = [f"background paragraph {i} about preemption" for i in range(3)]
        docs = [doc(text, priority=3) for text in contents]
        ingests = [asyncio.create_task(kenning.graphql(INGEST, input=d)) for d in docs]
        await wait_until(lambda: gpu.count("/api/embed", outcome="running") == 3, within=10)

        chat = await kenning.http.post(
            "/ollama/api/chat",
            json={
                "model": ORCHESTRATOR_MODEL,
                "messages": [{"role": "user", "content": "now"}],
                "stream": False,
            },
            headers={**kenning.auth(Role.AGENT), "X-Ollama-Priority": "0"},
        )
        assert chat.status_code == 200 and chat.headers["x-kenning-backend"] == "gpu0"
        results = await asyncio.gather(*ingests)
        assert [r["data"]["ingest"]["__typename"] for r in results] == ["IngestSuccess"] * 3
        for data, content in zip(docs, contents, strict=True):
            assert_same_direction(await stored_vector(routed_pool, data["sourceUrn"]), content)
        assert gpu.count("/api/embed", EMBED_MODEL, outcome="cancelled") == 3
        assert cpu.count("/api/embed", EMBED_MODEL, outcome="ok") == 3


async def test_a_server_without_backends_runs_no_router(
    routed_settings: Settings, routed_pool: asyncpg.Pool
) -> None:
    settings = routed_settings.model_copy(update={"router": RouterSettings()})
    async with running_kenning(settings, routed_pool) as kenning:
        assert (await kenning.http.post("/ollama/api/embed", json={})).status_code == 404
        assert (await kenning.http.get("/router/status")).status_code == 404
        status = await kenning.graphql("{ routerStatus { mode } }")
        assert status == {"data": {"routerStatus": None}}
        assert "kenning_router_" not in (await kenning.http.get("/metrics")).text


async def test_router_status_shows_backend_urls_to_global_admin_keys_only(
    fake_ollama_factory: FakeFactory,
    routed_settings: Settings,
    routed_pool: asyncpg.Pool,
    prefix: str,
) -> None:
    gpu, cpu, settings = gpu_and_cpu(fake_ollama_factory, routed_settings, prefix)
    async with running_kenning(settings, routed_pool) as kenning:

        async def urls(headers: dict[str, str]) -> list[str | None]:
            status = await kenning.http.get("/router/status", headers=headers)
            assert status.status_code == 200, status.text
            return [backend["url"] for backend in status.json()["backends"]]

        assert await urls(kenning.auth(Role.ADMIN)) == [gpu.url, cpu.url]
        for who in (kenning.auth(Role.AGENT), kenning.auth(Role.UI)):
            assert await urls(who) == [None, None]
        client_admin, _ = await PgApiKeys(routed_pool).create(Scope("acme"), Role.ADMIN)
        assert await urls({"Authorization": f"Bearer {client_admin}"}) == [None, None]
        anonymous = await kenning.http.get("/router/status")
        assert anonymous.status_code == 401 and gpu.url not in anonymous.text

"""``kenning serve --workers 2``: two real server processes on one port act as one server.

Every request here goes on a new connection (the kernel hands each to either process) and
each answer names its process in ``x-kenning-worker``, so a test can tell who answered.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.pool import create_pool
from tests.support.queue_api import settled_jobs
from tests.support.server_process import create_key, free_port, server_env, stop_server

pytestmark = pytest.mark.e2e

WORKER = "x-kenning-worker"
VIEWER = "{ viewer { role } }"
REQUEST = """mutation R($input: IngestInput!, $identity: IngestionIdentityInput!) {
  requestIngestion(input: $input, identity: $identity) {
    __typename ... on IngestionHandle { jobId status } } }"""
QUEUE = "subscription { queueStatus(first: 5) { workersAlive changes { jobId status } } }"
# Each request on its own connection: keep-alive would pin a client to one process.
FRESH = httpx.Limits(max_keepalive_connections=0)


@dataclass(frozen=True)
class Workers:
    url: str
    ws_url: str
    key: str
    parent: int
    log: Path


@pytest.fixture(scope="module")
def workers(
    migrated_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Workers]:
    port = free_port()
    log = tmp_path_factory.mktemp("workers") / "serve.log"
    env = server_env(migrated_settings, port, KENNING_QUEUE_WORKERS="1")
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "kenning", "serve", "--workers", "2"],
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    key = asyncio.run(create_key(migrated_settings, Scope(), Role.ADMIN))
    running = Workers(
        f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/graphql", key, process.pid, log
    )
    try:
        _wait_for_both(running, process)
        yield running
    finally:
        stop_server(process, timeout=20)  # uvicorn's parent stops both workers first


def _wait_for_both(running: Workers, process: subprocess.Popen[bytes]) -> None:
    ready: set[str] = set()
    deadline = time.monotonic() + 60
    with httpx.Client(limits=FRESH, timeout=2) as client:
        while len(ready) < 2 and time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"serve exited early:\n{running.log.read_text()}")
            try:
                answer = client.get(f"{running.url}/readyz")
                if answer.status_code == 200:
                    ready.add(answer.headers[WORKER])
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
    if len(ready) < 2:
        raise RuntimeError(f"two workers not ready in 60 s:\n{running.log.read_text()}")


async def graphql(
    client: httpx.AsyncClient, workers: Workers, query: str, key: str, **variables: Any
) -> httpx.Response:
    return await client.post(
        f"{workers.url}/graphql",
        json={"query": query, "variables": variables},
        headers={"Authorization": f"Bearer {key}"},
    )


async def test_two_worker_processes_answer_graphql(workers: Workers) -> None:
    seen: dict[str, int] = {}
    async with httpx.AsyncClient(limits=FRESH, timeout=10) as client:
        for _ in range(200):
            answer = await graphql(client, workers, VIEWER, workers.key)
            assert answer.status_code == 200
            assert answer.json() == {"data": {"viewer": {"role": "ADMIN"}}}
            seen[answer.headers[WORKER]] = seen.get(answer.headers[WORKER], 0) + 1
            if len(seen) == 2 and min(seen.values()) >= 3:
                break
    assert len(seen) == 2, f"one process answered everything: {seen}"
    assert str(workers.parent) not in seen  # the parent only supervises


async def test_a_key_revoked_by_the_cli_is_refused_by_both_workers_within_a_second(
    workers: Workers, migrated_settings: Settings
) -> None:
    pool = await create_pool(migrated_settings, min_size=1)
    try:
        key, info = await PgApiKeys(pool).create(Scope("acme"), Role.AGENT, "workers")
    finally:
        await pool.close()
    async with httpx.AsyncClient(limits=FRESH, timeout=10) as client:
        cached: set[str] = set()  # both processes hold the key's authentication in cache
        for _ in range(200):
            answer = await graphql(client, workers, VIEWER, key)
            assert answer.status_code == 200
            cached.add(answer.headers[WORKER])
            if len(cached) == 2:
                break
        assert len(cached) == 2

        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "kenning", "keys", "revoke", info.id],
            env=server_env(migrated_settings, 0),
            capture_output=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr.decode()
        revoked_at = time.perf_counter()

        answers: list[tuple[float, str, int]] = []
        while time.perf_counter() - revoked_at < 1.5 or len({w for _, w, _ in answers}) < 2:
            assert time.perf_counter() - revoked_at < 10, f"one worker never answered: {answers}"
            answer = await graphql(client, workers, VIEWER, key)
            answers.append(
                (time.perf_counter() - revoked_at, answer.headers[WORKER], answer.status_code)
            )
            await asyncio.sleep(0.01)
    late = [(round(t, 3), w) for t, w, status in answers if status != 401 and t >= 1.0]
    assert not late, f"the key still worked after 1 s: {late}"
    refused_by = {w for _, w, status in answers if status == 401}
    assert refused_by == cached, f"refusals came from {refused_by}, not from both {cached}"


async def _subscribe(workers: Workers) -> tuple[websockets.ClientConnection, str]:
    ws = await websockets.connect(workers.ws_url, subprotocols=["graphql-transport-ws"])  # type: ignore[list-item]
    worker = ws.response.headers[WORKER] if ws.response is not None else ""
    await ws.send(
        json.dumps(
            {"type": "connection_init", "payload": {"Authorization": f"Bearer {workers.key}"}}
        )
    )
    assert json.loads(await ws.recv())["type"] == "connection_ack"
    await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": QUEUE}}))
    first = json.loads(await asyncio.wait_for(ws.recv(), 15))
    assert first["type"] == "next", first
    # KENNING_QUEUE_WORKERS=1 in each of two processes: N multiplies the queue workers.
    assert first["payload"]["data"]["queueStatus"]["workersAlive"] == 2
    return ws, worker


async def request_job(client: httpx.AsyncClient, workers: Workers, urn: str) -> tuple[str, str]:
    """A queued job's id and the worker the request landed on."""
    variables = {
        "input": {"sourceUrn": urn, "kind": "note", "content": f"About {urn}.", "priority": 3},
        "identity": {"sourceKind": "e2e", "contentVersion": "v1"},
    }
    answer = await graphql(client, workers, REQUEST, workers.key, **variables)
    handle = answer.json()["data"]["requestIngestion"]
    assert handle["__typename"] == "IngestionHandle", answer.text
    return str(handle["jobId"]), answer.headers[WORKER]


async def test_a_subscription_on_one_worker_sees_a_job_queued_through_the_other(
    workers: Workers,
) -> None:
    ws, subscribed_on = await _subscribe(workers)
    try:
        assert subscribed_on
        async with httpx.AsyncClient(limits=FRESH, timeout=10) as client:
            for attempt in range(100):
                job_id, through = await request_job(client, workers, f"urn:e2e:workers:{attempt}")
                if through != subscribed_on:
                    break
        assert through != subscribed_on, "every request landed on the subscription's worker"
        statuses: list[str] = []
        while "INDEXED" not in statuses:
            message = json.loads(await asyncio.wait_for(ws.recv(), 30))
            assert message["type"] == "next", message
            changes = message["payload"]["data"]["queueStatus"]["changes"]
            statuses += [c["status"] for c in changes if c["jobId"] == job_id]
        assert statuses[0] == "QUEUED"
    finally:
        await ws.close()


def _sample(metrics: str, name: str, labels: dict[str, str]) -> float:
    """One sample's value, by name and (a subset of) its labels; 0 when absent."""
    for line in metrics.splitlines():
        if line.startswith(name + "{") and all(f'{k}="{v}"' in line for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def _scrape_both(
    client: httpx.AsyncClient, workers: Workers, name: str, **labels: str
) -> dict[str, float]:
    """One sample's value as each worker's /metrics gives it."""
    by_worker: dict[str, float] = {}
    for _ in range(200):
        answer = await client.get(f"{workers.url}/metrics")
        by_worker[answer.headers[WORKER]] = _sample(answer.text, name, labels)
        if len(by_worker) == 2:
            return by_worker
    raise AssertionError(f"one worker answered every scrape: {by_worker}")


async def test_metrics_from_either_worker_count_both_workers_requests(workers: Workers) -> None:
    series = {"name": "kenning_http_requests_total", "path": "/graphql", "status": "200"}
    async with httpx.AsyncClient(limits=FRESH, timeout=10) as client:
        before = await _scrape_both(client, workers, **series)
        assert len(set(before.values())) == 1, before
        answered: dict[str, int] = {}
        for _ in range(40):
            answer = await graphql(client, workers, VIEWER, workers.key)
            assert answer.status_code == 200
            answered[answer.headers[WORKER]] = answered.get(answer.headers[WORKER], 0) + 1
        after = await _scrape_both(client, workers, **series)
    assert len(answered) == 2, f"one process answered every request: {answered}"
    (start,) = set(before.values())
    assert after == {worker: start + 40 for worker in after}, (answered, before, after)


async def test_each_queued_job_runs_once_across_both_workers(
    workers: Workers, migrated_settings: Settings
) -> None:
    runs = {"name": "kenning_queue_job_seconds_count", "outcome": "indexed"}
    count = 20
    async with httpx.AsyncClient(limits=FRESH, timeout=10) as client:
        (ran_before, *_) = (await _scrape_both(client, workers, **runs)).values()
        jobs = [
            (await request_job(client, workers, f"urn:e2e:workers:once:{n}"))[0]
            for n in range(count)
        ]
        rows = await settled_jobs(migrated_settings, jobs, time.monotonic() + 60)
        await asyncio.sleep(0.5)  # a second run of a job would have ended by now
        ran = await _scrape_both(client, workers, **runs)
    # attempts counts retries: 0 is one run that indexed.
    assert [(r["status"], r["attempts"]) for r in rows] == [("INDEXED", 0)] * count
    assert set(ran.values()) == {ran_before + count}, (ran_before, ran)

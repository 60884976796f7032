"""Cross-process events: a subscriber on server A sees a job claimed and finished by a
worker in a separate process B (A runs no workers at all)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.server_process import create_key, server_env, start_server, stop_server
from tests.support.ws_client import ws_subscribe

pytestmark = pytest.mark.integration

QUEUE = """subscription { queueStatus(first: 5) {
  workersAlive workers changes { jobId status stage } } }"""
REQUEST = """mutation R($input: IngestInput!, $identity: IngestionIdentityInput!) {
  requestIngestion(input: $input, identity: $identity) { ... on IngestionHandle { jobId } } }"""


def start_worker(settings: Settings, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "kenning", "worker"],
            env=server_env(settings, 0, KENNING_QUEUE_IDLE_SECONDS="0.5"),
            stdout=sink,
            stderr=subprocess.STDOUT,
        )


def worker_ids(log: Path) -> list[str]:
    for line in log.read_text().splitlines():
        if '"worker.process.started"' in line:
            return list(json.loads(line)["workers"])
    return []


async def test_a_worker_in_another_process_is_seen_by_a_subscriber_on_the_server(
    queue_settings: Settings, queue_clean: None, tmp_path: Path
) -> None:
    server_process, server = await asyncio.to_thread(
        start_server, queue_settings, tmp_path / "server.log", KENNING_QUEUE_WORKERS="0"
    )
    worker: subprocess.Popen[bytes] | None = None
    try:
        server = server.with_key(await create_key(queue_settings, Scope(), Role.ADMIN))
        stream = ws_subscribe(server.ws_url, server.headers, QUEUE)
        first = (await asyncio.wait_for(anext(stream), 15))["queueStatus"]
        assert first["workersAlive"] == 0
        variables = {
            "input": {"sourceUrn": "urn:two", "kind": "note", "content": "Across processes."},
            "identity": {"sourceKind": "test", "contentVersion": "v1"},
        }
        async with httpx.AsyncClient(timeout=10) as http:
            answer = await http.post(
                f"{server.url}/graphql",
                json={"query": REQUEST, "variables": variables},
                headers=server.headers,
            )
        job_id = answer.json()["data"]["requestIngestion"]["jobId"]
        worker = start_worker(queue_settings, tmp_path / "worker.log")
        seen: list[tuple[str, str | None]] = []
        workers: list[Any] = []
        for _ in range(100):
            update = (await asyncio.wait_for(anext(stream), 30))["queueStatus"]
            seen += [(c["status"], c["stage"]) for c in update["changes"] if c["jobId"] == job_id]
            workers.append(update["workers"])
            if ("INDEXED", None) in seen:
                break
        await stream.aclose()
        assert seen == [
            ("QUEUED", None),
            ("RUNNING", "CHUNKING"),
            ("RUNNING", "EMBEDDING"),
            ("RUNNING", "STORING"),
            ("INDEXED", None),
        ]
        assert worker_ids(tmp_path / "worker.log") in workers
    finally:
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=20)
        await asyncio.to_thread(stop_server, server_process)

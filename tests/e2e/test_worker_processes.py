"""``kenning worker --processes 2``: two real worker processes drain one queue, each job once,
and stop cleanly together."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from kenning.settings import Settings
from tests.support.queue_api import settled_jobs
from tests.support.server_process import Server, server_env

pytestmark = pytest.mark.e2e

REQUEST = """mutation R($input: IngestInput!, $identity: IngestionIdentityInput!) {
  requestIngestion(input: $input, identity: $identity) { ... on IngestionHandle { jobId } } }"""


def start_workers(settings: Settings, log: Path, **extra: str) -> subprocess.Popen[bytes]:
    with log.open("wb") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "kenning", "worker", "--processes", "2"],
            env=server_env(settings, 0, **extra),
            stdout=sink,
            stderr=subprocess.STDOUT,
        )


def started_workers(log: Path) -> list[str]:
    """Worker ids each process logged at its start."""
    ids: list[str] = []
    for line in log.read_text().splitlines():
        if '"worker.process.started"' in line:
            ids += json.loads(line)["workers"]
    return ids


async def test_two_worker_processes_run_each_job_once_and_stop_together(
    server: Server, migrated_settings: Settings, tmp_path: Path
) -> None:
    log = tmp_path / "worker.log"
    parent = start_workers(migrated_settings, log, KENNING_QUEUE_IDLE_SECONDS="0.2")
    try:
        deadline = time.monotonic() + 60
        while len(started_workers(log)) < 2:
            assert parent.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            await asyncio.sleep(0.1)
        assert len(set(started_workers(log))) == 2

        async with httpx.AsyncClient(timeout=10) as client:
            jobs = []
            for n in range(12):
                variables = {
                    "input": {"sourceUrn": f"urn:e2e:processes:{n}", "kind": "note",
                              "content": f"Process test {n}."},
                    "identity": {"sourceKind": "e2e", "contentVersion": "v1"},
                }  # fmt: skip
                answer = await client.post(
                    f"{server.url}/graphql",
                    json={"query": REQUEST, "variables": variables},
                    headers=server.headers,
                )
                jobs.append(answer.json()["data"]["requestIngestion"]["jobId"])
        rows = await settled_jobs(migrated_settings, jobs, deadline)
        # attempts counts retries: 0 is one run that indexed.
        assert [(r["status"], r["attempts"]) for r in rows] == [("INDEXED", 0)] * len(jobs)
    finally:
        parent.send_signal(signal.SIGTERM)
        code = await asyncio.to_thread(parent.wait, 40)
    assert code == 0, log.read_text()
    assert log.read_text().count('"worker.process.stopped"') == 2  # each closed its pools


async def test_a_worker_process_that_dies_stops_the_others_and_fails(
    migrated_settings: Settings, tmp_path: Path
) -> None:
    log = tmp_path / "worker.log"
    parent = start_workers(migrated_settings, log)
    try:
        deadline = time.monotonic() + 60
        children: list[int] = []
        while len(started_workers(log)) < 2:
            assert parent.poll() is None and time.monotonic() < deadline, log.read_text()
            await asyncio.sleep(0.1)
        for line in log.read_text().splitlines():
            if '"worker.processes.started"' in line:
                children = json.loads(line)["processes"]
        assert len(children) == 2
        os.kill(children[0], signal.SIGKILL)
        code = await asyncio.to_thread(parent.wait, 40)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
    assert code == 1, log.read_text()
    assert log.read_text().count('"worker.process.stopped"') == 1  # the survivor, cleanly

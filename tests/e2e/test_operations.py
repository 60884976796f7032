"""Operating a real server: CORS for a UI on another origin, metrics and access log lines."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.server_process import Server, create_key, start_server, stop_server

pytestmark = pytest.mark.e2e

UI = "http://ui.example.test:5173"
PREFLIGHT = {
    "Origin": UI,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type",
}


@pytest.fixture(scope="module")
def cors_server(
    migrated_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    log = tmp_path_factory.mktemp("cors") / "server.log"
    process, running = start_server(migrated_settings, log, KENNING_CORS_ORIGINS=UI)
    key = asyncio.run(create_key(migrated_settings, Scope("acme"), Role.UI))
    yield running.with_key(key)
    stop_server(process)


def test_a_ui_on_an_allowed_origin_passes_preflight_and_reads(cors_server: Server) -> None:
    preflight = httpx.options(f"{cors_server.url}/graphql", headers=PREFLIGHT)
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == UI
    allowed = preflight.headers["access-control-allow-headers"].lower()
    assert "authorization" in allowed and "content-type" in allowed
    assert "POST" in preflight.headers["access-control-allow-methods"]
    answer = httpx.post(
        f"{cors_server.url}/graphql",
        json={"query": "{ viewer { role } }"},
        headers={**cors_server.headers, "Origin": UI},
    )
    assert answer.json() == {"data": {"viewer": {"role": "UI"}}}
    assert answer.headers["access-control-allow-origin"] == UI
    assert "x-request-id" in answer.headers["access-control-expose-headers"].lower()


def test_a_browser_mcp_client_passes_preflight_and_calls_a_tool(cors_server: Server) -> None:
    headers = "authorization, content-type, mcp-protocol-version, mcp-session-id"
    preflight = httpx.options(
        f"{cors_server.url}/mcp", headers={**PREFLIGHT, "Access-Control-Request-Headers": headers}
    )
    assert preflight.status_code == 200, preflight.text
    allowed = preflight.headers["access-control-allow-headers"].lower()
    assert "mcp-protocol-version" in allowed and "mcp-session-id" in allowed
    answer = httpx.post(
        f"{cors_server.url}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "browser", "version": "1"}}},
        headers={**cors_server.headers, "Origin": UI, "mcp-protocol-version": "2025-06-18",
                 "Accept": "application/json, text/event-stream"},
    )  # fmt: skip
    assert answer.status_code == 200, answer.text
    assert answer.json()["result"]["serverInfo"]["name"] == "kenning"
    assert answer.headers["access-control-allow-origin"] == UI


def test_other_origins_are_refused(cors_server: Server) -> None:
    other = {**PREFLIGHT, "Origin": "http://evil.example.test"}
    refused = httpx.options(f"{cors_server.url}/graphql", headers=other)
    assert refused.status_code == 400
    assert "access-control-allow-origin" not in refused.headers


def test_without_origins_cors_is_off(server: Server) -> None:
    preflight = httpx.options(f"{server.url}/graphql", headers=PREFLIGHT)
    assert preflight.status_code == 405
    assert "access-control-allow-origin" not in preflight.headers


def _series(metrics: str, name: str, **labels: str) -> float:
    """The value of one sample, by name and (a subset of) labels; 0 when absent."""
    for line in metrics.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        if all(f'{k}="{v}"' in line for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_count_what_the_server_does(working_server: Server) -> None:
    server = working_server  # a job must run to be counted

    def gql(query: str, **variables: object) -> Any:
        body = {"query": query, "variables": variables}
        return httpx.post(
            f"{server.url}/graphql", json=body, headers=server.headers, timeout=30
        ).json()

    gql("query Health { health { status } }")
    gql("query Broken { nothing }")
    gql('query Find { search(query: "metrics", mode: KEYWORD) { __typename } }')
    handle = gql(
        """mutation Queue($input: IngestInput!, $identity: IngestionIdentityInput!) {
          requestIngestion(input: $input, identity: $identity) {
            ... on IngestionHandle { jobId } } }""",
        input={"sourceUrn": "doc:metrics", "kind": "note", "content": "Counted by metrics."},
        identity={"sourceKind": "test", "contentVersion": "1"},
    )
    job_id = handle["data"]["requestIngestion"]["jobId"]
    deadline = time.monotonic() + 30
    status = ""
    while status != "INDEXED" and time.monotonic() < deadline:
        time.sleep(0.2)
        job = gql("query($id: ID!) { ingestionStatus(jobId: $id) { status } }", id=job_id)
        status = job["data"]["ingestionStatus"]["status"]
    assert status == "INDEXED"
    # The worker records the duration just after the job's row says INDEXED.
    metrics = httpx.get(f"{server.url}/metrics").text
    for _ in range(50):
        if _series(metrics, "kenning_queue_job_seconds_count", outcome="indexed"):
            break
        time.sleep(0.1)
        metrics = httpx.get(f"{server.url}/metrics").text
    ops = "kenning_graphql_operations_total"
    assert _series(metrics, ops, operation="Health", type="query", outcome="ok") >= 1
    assert _series(metrics, ops, operation="Broken", outcome="GRAPHQL_VALIDATION_FAILED") >= 1
    assert _series(metrics, "kenning_search_seconds_count", mode="keyword") >= 1
    assert _series(metrics, "kenning_queue_job_seconds_count", outcome="indexed") >= 1
    assert _series(metrics, "kenning_embedding_seconds_count", outcome="ok") >= 1
    assert _series(metrics, "kenning_embedding_batch_size_count") >= 1
    # Queue depth is read at scrape time, zero included.
    assert 'kenning_queue_jobs{lane="BULK",status="QUEUED"}' in metrics
    assert 'kenning_queue_jobs{lane="PRIORITY",status="RUNNING"}' in metrics
    # No client here is large enough for resident copies: none held, and the gauge says so.
    assert "\nkenning_search_resident_rows 0.0\n" in metrics


def test_one_access_log_line_per_operation(server: Server, tmp_path: Path) -> None:
    response = httpx.post(
        f"{server.url}/graphql",
        json={"query": "query WhoAmI { viewer { keyId } }"},
        headers=server.headers,
    )
    rid = response.headers["x-request-id"]
    lines = [json.loads(line) for line in server.log.read_text().splitlines() if rid in line]
    [access] = [line for line in lines if line["event"] == "graphql.operation"]
    assert (access["operation"], access["type"], access["outcome"]) == ("WhoAmI", "query", "ok")
    assert access["level"] == "info" and access["duration_ms"] >= 0

"""Work that needs a model the backend does not hold is refused at once, naming what to
pull, with nothing stored or queued; a backend nobody answers at is no reason to refuse (the
work is queued and waits for its model, visibly)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.router.demo import FakeOllama
from kenning.settings import Settings
from tests.support.server_process import (
    Server,
    create_key,
    free_port,
    graphql,
    start_server,
    stop_server,
)

pytestmark = pytest.mark.e2e

MEMBER = "__typename ... on Error { code message } ... on ModelUnavailable { retryable }"
OUTCOME = f"""mutation($notes: String!) {{ recordTaskOutcome(input: {{taskId: "T-1",
  category: EPIC, action: CODE, finalResult: "done", rawContext: $notes}}) {{ {MEMBER} }} }}"""
INGEST = f"""mutation($urn: String!, $extraction: Extraction) {{ ingest(input: {{
  sourceUrn: $urn, kind: "note", content: "Billing uses Postgres.", extraction: $extraction}})
  {{ {MEMBER} ... on IngestSuccess {{ status }} }} }}"""
QUEUE = f"""mutation {{ requestIngestion(input: {{sourceUrn: "doc:q", kind: "note",
  content: "Billing uses Postgres.", extraction: LLM}}, identity: {{sourceKind: "note",
  contentVersion: "v1"}}) {{ {MEMBER} }} }}"""
PULL = "the extract model cannot answer: the backend does not hold absent:3b: `ollama pull"


@pytest.fixture(scope="module")
def ollama() -> Iterator[FakeOllama]:
    fake = FakeOllama("refusals")
    fake.start()
    yield fake
    fake.stop()


def _asked(settings: Settings, log: Path, **env: str) -> tuple[Server, Any, str]:
    key = asyncio.run(create_key(settings, Scope(f"refusals-{log.parent.name}"), Role.AGENT))
    process, server = start_server(settings, log, **env)
    return server, process, key


def test_work_for_a_model_the_backend_lacks_is_refused_at_once(
    migrated_settings: Settings, tmp_path: Path, ollama: FakeOllama
) -> None:
    env = {"KENNING_OLLAMA_URL": ollama.url, "KENNING_MODEL_EXTRACT": "absent:3b"}
    server, process, key = _asked(migrated_settings, tmp_path / "server.log", **env)
    try:
        outcome = graphql(server, key, OUTCOME, notes="Moved retries to the queue.")
        refused = graphql(server, key, INGEST, urn="doc:llm", extraction="LLM")
        queued = graphql(server, key, QUEUE)
        # Nothing of the refused ingest was stored: the same document is new afterwards.
        plain = graphql(server, key, INGEST, urn="doc:llm", extraction="NONE")
    finally:
        stop_server(process)
    for answer in (outcome["recordTaskOutcome"], refused["ingest"], queued["requestIngestion"]):
        assert answer["__typename"] == "ModelUnavailable", answer
        assert answer["code"] == "MODEL_UNAVAILABLE" and answer["retryable"] is False
        assert answer["message"].startswith(PULL), answer["message"]
    assert plain["ingest"] == {"__typename": "IngestSuccess", "status": "INDEXED"}


def test_an_unreachable_backend_queues_the_work_to_wait_for_its_model(
    migrated_settings: Settings, tmp_path: Path
) -> None:
    env = {"KENNING_OLLAMA_URL": f"http://127.0.0.1:{free_port()}"}
    server, process, key = _asked(migrated_settings, tmp_path / "server.log", **env)
    try:
        outcome = graphql(server, key, OUTCOME, notes="Moved retries to the queue.")
    finally:
        stop_server(process)
    assert outcome["recordTaskOutcome"]["__typename"] == "TaskOutcomeQueued", outcome

"""Contradictions found by the model (``extraction: LLM``), on the real stack with the fake
Ollama behind the real model adapter: a contradicted edge ends CONTRADICTED by
``llm:<model>`` at the chunk's observedAt, shows in ``edgeHistory`` and leaves
``agentContext``; the prompt lists only the writer's own edges; an id the prompt did not
list ends nothing, nor does a malformed answer, and the extraction still completes."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
import redis.asyncio as aioredis

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.extraction.contradiction_prompt import CONTRADICT_SYSTEM
from kenning.domain.ingestion.request import EdgeEnding
from kenning.domain.ingestion.validity import EndReason
from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.router.demo import FakeOllama
from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.models import OllamaModelClient
from tests.fakes.ollama import FakeFactory
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

ACME = Principal("acme-agent", Scope("acme"), Role.AGENT)
WEB = Principal("acme-web", Scope("acme", "web"), Role.AGENT)
GLOBEX = Principal("globex-agent", Scope("globex"), Role.AGENT)

INGEST = """
mutation($urn: String!, $content: String!, $at: DateTime, $extraction: Extraction) {
  ingest(input: {sourceUrn: $urn, kind: "note", content: $content, observedAt: $at,
                 extraction: $extraction}) {
    __typename ... on IngestSuccess { extractionJobId } ... on Error { code field message }
  }
}"""
HISTORY = """
query($to: String) {
  edgeHistory(from: "service:billing", edgeType: "uses", to: $to) {
    to validFrom validTo endedReason endedBy
  }
}"""
CONTEXT = """
query {
  agentContext(query: "billing service database", entityKeys: ["service:billing"]) {
    ... on AgentContext { text }
  }
}"""
# What the model reads in the new passage: billing uses Postgres.
EXTRACTED = json.dumps(
    {
        "entities": [
            {"type": "service", "name": "Billing", "description": ""},
            {"type": "database", "name": "Postgres", "description": ""},
        ],
        "relations": [
            {"source": "Billing", "type": "uses", "target": "Postgres", "confidence": 0.9}
        ],
    }
)


class Model:
    """The fake model: the extraction above for every passage, ``verdict`` for every
    contradiction check, whose prompts it keeps."""

    def __init__(self) -> None:
        self.verdict = '{"contradicts": []}'
        self.prompts: list[str] = []

    def __call__(self, body: dict[str, Any]) -> str:
        if body["messages"][0]["content"] != CONTRADICT_SYSTEM:
            return EXTRACTED
        self.prompts.append(body["messages"][1]["content"])
        return self.verdict


@pytest.fixture
def model() -> Model:
    return Model()


@pytest.fixture
async def xruntime(
    pool: asyncpg.Pool,
    migrated_settings: Settings,
    fake_ollama_factory: FakeFactory,
    model: Model,
    clean: None,
) -> AsyncIterator[Runtime]:
    fake: FakeOllama = fake_ollama_factory("contradict")
    fake.replier = model
    models = OllamaModelClient(fake.url, timeout=10)
    runtime = Runtime(
        settings=migrated_settings,
        pool=pool,
        redis=aioredis.from_url(migrated_settings.redis_url),
        embedder=CountingEmbedder(migrated_settings.embedding_dim),
        models=models,
    )
    yield runtime
    await models.aclose()
    await runtime.queue.aclose()
    await runtime.redis.aclose()


async def _say(api: Api, urn: str, target: str, at: str) -> None:
    """A plain ingest stating service:billing -uses-> ``target`` as of ``at``."""
    content = f"Billing keeps its invoices.\n\nservice:billing|uses|{target}"
    data = await api(INGEST, urn=urn, content=content, at=at, extraction="NONE")
    assert data["ingest"]["__typename"] == "IngestSuccess", data


async def _extract(runtime: Runtime, api: Api) -> None:
    """An LLM ingest of the new passage (June 2025), its extraction job run to the end."""
    data = await api(
        INGEST,
        urn="doc:new",
        content="Billing runs on Postgres now.",
        at="2025-06-01T00:00:00Z",
        extraction="LLM",
    )
    assert data["ingest"]["extractionJobId"], data
    claimed = await runtime.queue.work.claim(Lane.BULK, "test/1", 30.0)
    assert claimed is not None
    assert await run_job(claimed, runtime.queue.work, runtime.job_deps()) is JobStatus.INDEXED


async def _current(runtime: Runtime) -> set[tuple[str, str, str]]:
    """(scope, target, ended reason or "") of every service:billing -uses-> edge."""
    graph = runtime.settings.graph_name
    rows = await runtime.pool.fetch(
        f"""SELECT ag_catalog.agtype_out(r.properties)::text AS p,
                   ag_catalog.agtype_out(e.properties)::text::jsonb ->> 'key' AS t
            FROM {graph}."REL" r JOIN {graph}."Entity" e ON e.id = r.end_id"""
    )
    found = set()
    for row in rows:
        props = json.loads(row["p"])
        scope = "/".join(p for p in (props["client"], props["project"]) if p)
        found.add((scope, row["t"], props.get("endedReason") or ""))
    return found


async def test_a_contradicted_edge_ends_and_leaves_the_context(
    xruntime: Runtime, model: Model
) -> None:
    acme = Api(xruntime, ACME)
    await _say(acme, "doc:old", "database:mysql", "2024-01-01T00:00:00Z")
    model.verdict = '{"contradicts": ["E1"]}'
    await _extract(xruntime, acme)

    [prompt] = model.prompts
    assert "E1: service:billing -uses-> database:mysql" in prompt
    assert "Billing runs on Postgres now." in prompt
    [ended] = (await acme(HISTORY, to="database:mysql"))["edgeHistory"]
    assert ended == {
        "to": "database:mysql",
        "validFrom": "2024-01-01T00:00:00+00:00",
        "validTo": "2025-06-01T00:00:00+00:00",
        "endedReason": "CONTRADICTED",
        "endedBy": f"llm:{xruntime.settings.model_extract}",
    }
    assert await _current(xruntime) == {
        ("acme", "database:mysql", "CONTRADICTED"),
        ("acme", "database:postgres", ""),
    }
    text = (await acme(CONTEXT))["agentContext"]["text"]
    assert "Service:billing USES → Database:postgres" in text
    assert "mysql" not in text


async def test_the_prompt_lists_only_the_writers_edges_and_other_ids_end_nothing(
    xruntime: Runtime, model: Model, caplog: pytest.LogCaptureFixture
) -> None:
    api = Api(xruntime)
    await _say(api.as_(GLOBEX), "doc:theirs", "database:mysql", "2024-01-01T00:00:00Z")
    await _say(api.as_(ACME), "doc:wide", "database:oracle", "2024-01-01T00:00:00Z")
    web = api.as_(WEB)
    await _say(web, "doc:web-old", "database:mysql", "2024-01-01T00:00:00Z")
    # Only E1 is listed: E2 and E3 would be the edges the writer may not end.
    model.verdict = '{"contradicts": ["E2", "E3", "oracle"]}'
    with caplog.at_level(logging.WARNING, logger="kenning.extraction"):
        await _extract(xruntime, web)

    [prompt] = model.prompts
    listed = [line for line in prompt.splitlines() if line.startswith("E")]
    assert listed == ["E1: service:billing -uses-> database:mysql"]
    assert "oracle" not in prompt
    assert await _current(xruntime) == {
        ("globex", "database:mysql", ""),
        ("acme", "database:oracle", ""),
        ("acme/web", "database:mysql", ""),
        ("acme/web", "database:postgres", ""),
    }
    ignored = [r for r in caplog.records if r.getMessage() == "extraction.contradiction.ignored"]
    assert len(ignored) == 3
    # The write unit is the last guard: an edge of a wider scope cannot be ended at the
    # writer's scope, whoever names it.
    wide = EdgeEnding("service:billing", "uses", "database:oracle", EndReason.CONTRADICTED, "m")
    assert await xruntime.store.write(lambda unit: unit.end_edges(WEB.scope, [wide])) == 0
    assert ("acme", "database:oracle", "") in await _current(xruntime)


async def test_a_malformed_answer_ends_nothing_and_the_extraction_completes(
    xruntime: Runtime, model: Model
) -> None:
    acme = Api(xruntime, ACME)
    await _say(acme, "doc:old", "database:mysql", "2024-01-01T00:00:00Z")
    model.verdict = '{"contradicts": "E1, definitely"}'
    await _extract(xruntime, acme)
    # Asked once, then once per retry with the errors fed back; never applied.
    assert len(model.prompts) == 1 + xruntime.settings.model_max_retries
    assert await _current(xruntime) == {
        ("acme", "database:mysql", ""),
        ("acme", "database:postgres", ""),
    }


async def test_an_unchanged_check_costs_no_call(xruntime: Runtime, model: Model) -> None:
    acme = Api(xruntime, ACME)
    await _say(acme, "doc:old", "database:mysql", "2024-01-01T00:00:00Z")
    await _extract(xruntime, acme)
    assert len(model.prompts) == 1
    # An extracted edge is valid from its chunk's observedAt, not from when it was read.
    [edge] = (await acme(HISTORY, to="database:postgres"))["edgeHistory"]
    assert (edge["validFrom"], edge["validTo"]) == ("2025-06-01T00:00:00+00:00", None)
    # The same passage under another URN lists the same edges (doc:new's own edge is one
    # it states itself, so never listed): the cached answer serves, no call is made.
    data = await acme(
        INGEST,
        urn="doc:again",
        content="Billing runs on Postgres now.",
        at="2025-06-01T00:00:00Z",
        extraction="LLM",
    )
    claimed = await xruntime.queue.work.claim(Lane.BULK, "test/2", 30.0)
    assert data["ingest"]["extractionJobId"] and claimed is not None
    assert await run_job(claimed, xruntime.queue.work, xruntime.job_deps()) is JobStatus.INDEXED
    assert len(model.prompts) == 1

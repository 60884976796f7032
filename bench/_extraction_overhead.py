"""Kenning's own cost of graph extraction, on the real stack against the fake Ollama.

The labelled documents, each made unique per copy by one added sentence, are ingested (no
extraction) into the benchmark's database; then each source goes through ``extract_source``,
the work of a queued job's EXTRACTING stage (chunks read, cache looked up, model called,
answer cached, merged, aliases resolved, graph written under the source's lock). Kenning's
overhead per chunk is the stage's wall time minus the time spent inside the model client's
``chat``. The baseline makes the same calls as a plain script would (one HTTP POST per chunk
of the same body, the answer parsed and validated), in the same run.

Then the cache: every source extracted again after an unchanged re-ingest (model calls: goal
0), and again after one document changed (goal: the chunks whose text changed, only).

Two shapes of source: one labelled document each (one chunk: every per-source cost lands on
that chunk, the worst case) and the whole set joined into one source per copy (several
documents per chunk, about ten chunks per source).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import httpx

from bench._extraction_phases import Phases
from bench._extraction_set import LabelledSet
from kenning.domain.access.scope import Scope
from kenning.domain.extraction.extract_source import ExtractionDeps, extract_source
from kenning.domain.extraction.graph_extraction import ChunkExtraction, extract_prompt
from kenning.domain.ingestion.ingest import IngestDeps, ingest
from kenning.domain.ingestion.request import IngestRequest
from kenning.domain.models.ports import ChatReply, ChatRequest, ModelClient, ModelPriority
from kenning.domain.models.structured import output_schema

SCOPE = Scope("bench-extraction")
KIND = "doc"


class TimedModelClient:
    """A ``ModelClient`` that adds up the time spent inside the wrapped client's ``chat``."""

    def __init__(self, inner: ModelClient) -> None:
        self.inner = inner
        self.calls = 0
        self.seconds = 0.0

    async def installed(self) -> frozenset[str]:
        return await self.inner.installed()

    async def chat(self, request: ChatRequest) -> ChatReply:
        started = time.perf_counter()
        try:
            return await self.inner.chat(request)
        finally:
            self.seconds += time.perf_counter() - started
            self.calls += 1

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass(frozen=True, slots=True)
class Source:
    urn: str
    text: str


def corpus(labelled: LabelledSet, copies: int) -> list[Source]:
    """Every document ``copies`` times, each copy's text unique (no cache hit across them)."""
    return [
        Source(f"bench:extraction:{doc.id}:{n}", f"{doc.text} This note is copy {n} of {doc.id}.")
        for n in range(copies)
        for doc in labelled.documents
    ]


def joined_corpus(labelled: LabelledSet, copies: int) -> list[Source]:
    """The whole set as one source per copy, a paragraph per document."""
    return [
        Source(
            f"bench:extraction:handbook:{n}",
            "\n\n".join(f"{d.text} Handbook {n}, section {d.id}." for d in labelled.documents),
        )
        for n in range(copies)
    ]


@dataclass
class Pass:
    """One pass of extraction over every source."""

    sources: int = 0
    chunks: int = 0
    model_calls: int = 0
    cached: int = 0
    stage_seconds: float = 0.0
    model_seconds: float = 0.0
    per_source_calls: dict[str, int] = field(default_factory=dict)
    phase_seconds: dict[str, float] = field(default_factory=dict)

    @property
    def overhead_ms_per_chunk(self) -> float:
        return (self.stage_seconds - self.model_seconds) * 1000 / max(self.chunks, 1)

    @property
    def stage_ms_per_chunk(self) -> float:
        return self.stage_seconds * 1000 / max(self.chunks, 1)

    @property
    def model_ms_per_call(self) -> float:
        return self.model_seconds * 1000 / max(self.model_calls, 1)


async def ingest_all(sources: Sequence[Source], deps: IngestDeps) -> None:
    """Store every source's chunks (and its written references: none here)."""
    for source in sources:
        await ingest(IngestRequest(source.urn, KIND, source.text, SCOPE), deps)


async def extract_all(
    sources: Sequence[Source], deps: ExtractionDeps, client: TimedModelClient, phases: Phases
) -> Pass:
    """``extract_source`` over every source, timed per stage, per port and inside the model."""
    result = Pass()
    before = phases.snapshot()
    for source in sources:
        calls, model_seconds = client.calls, client.seconds
        started = time.perf_counter()
        report = await extract_source(SCOPE, source.urn, deps)
        result.stage_seconds += time.perf_counter() - started
        result.model_seconds += client.seconds - model_seconds
        result.sources += 1
        result.chunks += report.chunks
        result.model_calls += report.model_calls
        result.cached += report.cached
        result.per_source_calls[source.urn] = client.calls - calls
    after = phases.snapshot()
    result.phase_seconds = {k: v - before.get(k, 0.0) for k, v in after.items()}
    return result


@dataclass(frozen=True, slots=True)
class Baseline:
    calls: int
    seconds: float

    @property
    def ms_per_call(self) -> float:
        return self.seconds * 1000 / max(self.calls, 1)


async def plain_calls(url: str, texts: Sequence[str], *, model: str) -> Baseline:
    """The same chat calls from a plain script: POST, parse, validate; nothing stored."""
    schema = output_schema(ChunkExtraction)
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        started = time.perf_counter()
        for text in texts:
            prompt = extract_prompt(model, text, priority=ModelPriority.BACKGROUND, max_retries=0)
            body = {
                "model": model,
                "messages": [
                    {"role": "system", "content": prompt.system},
                    {"role": "user", "content": prompt.prompt},
                ],
                "stream": False,
                "format": schema,
                "options": {"temperature": 0},
            }
            answer = await http.post("/api/chat", json=body, headers={"X-Ollama-Priority": "3"})
            answer.raise_for_status()
            ChunkExtraction.model_validate_json(answer.json()["message"]["content"])
        return Baseline(len(texts), time.perf_counter() - started)

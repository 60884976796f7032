"""The overhead run on the real stack: the benchmark database's ports, the model client
timed, each port timed, and the passes of one source shape (see ``_extraction_overhead``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench._extraction_overhead import (
    SCOPE,
    Source,
    TimedModelClient,
    extract_all,
    ingest_all,
    plain_calls,
)
from bench._extraction_phases import Phases, TimedAliases, TimedCache, TimedChunks, TimedStore
from bench._extraction_report import overhead_json
from kenning.domain.extraction.extract_source import ExtractionDeps
from kenning.domain.ingestion.ingest import IngestDeps
from kenning.settings import Settings
from kenning.storage.db.pool import create_pool
from kenning.storage.embedders.factory import create_embedder
from kenning.storage.extraction.cache import PgExtractionCache, PgSourceChunks
from kenning.storage.ingestion.alias_registry import PgAliasRegistry
from kenning.storage.ingestion.knowledge_store import PgKnowledgeStore
from kenning.storage.models.ollama import OllamaModelClient

CHANGED = " It moved to the eu-west region in May."


@dataclass(frozen=True, slots=True)
class Stack:
    url: str
    model: str
    ingest: IngestDeps
    extraction: ExtractionDeps
    client: TimedModelClient
    phases: Phases
    chunks: PgSourceChunks


async def _chunk_hashes(stack: Stack, urn: str) -> list[str]:
    return [c.content_hash for c in await stack.chunks.chunks_of(SCOPE, urn)]


async def measure_shape(stack: Stack, sources: Sequence[Source]) -> dict[str, Any]:
    """Ingest, extract cold, the plain baseline, re-ingest unchanged and extract, change the
    first source and extract: the figures of ``overhead_json``."""
    await ingest_all(sources, stack.ingest)
    cold = await extract_all(sources, stack.extraction, stack.client, stack.phases)
    texts = [c.content for s in sources for c in await stack.chunks.chunks_of(SCOPE, s.urn)]
    baseline = await plain_calls(stack.url, texts, model=stack.model)
    await ingest_all(sources, stack.ingest)
    unchanged = await extract_all(sources, stack.extraction, stack.client, stack.phases)
    first = sources[0]
    before = await _chunk_hashes(stack, first.urn)
    await ingest_all([Source(first.urn, first.text + CHANGED)], stack.ingest)
    changed_chunks = len(set(await _chunk_hashes(stack, first.urn)) - set(before))
    changed = await extract_all(sources, stack.extraction, stack.client, stack.phases)
    return overhead_json(cold, baseline, unchanged, changed, first.urn, changed_chunks)


async def run_shapes(
    settings: Settings, url: str, *, model: str, max_retries: int, shapes: dict[str, list[Source]]
) -> dict[str, Any]:
    """Every shape in turn over one pool and one model client; figures by shape name."""
    pool = await create_pool(settings)
    client = TimedModelClient(OllamaModelClient(url))
    phases = Phases()
    try:
        store = PgKnowledgeStore(pool, settings.graph_name)
        aliases = PgAliasRegistry(pool)
        ingest = IngestDeps(
            store, aliases, create_embedder(settings),
            secret_policy=settings.secret_policy, chunk_limit=settings.chunk_limit,
        )  # fmt: skip
        chunks = PgSourceChunks(pool)
        extraction = ExtractionDeps(
            client, TimedChunks(chunks, phases), TimedCache(PgExtractionCache(pool), phases),
            TimedStore(store, phases), TimedAliases(aliases, phases),
            model=model, max_retries=max_retries,
        )  # fmt: skip
        stack = Stack(url, model, ingest, extraction, client, phases, chunks)
        return {name: await measure_shape(stack, sources) for name, sources in shapes.items()}
    finally:
        await client.aclose()
        await pool.close()

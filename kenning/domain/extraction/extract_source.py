"""Graph extraction of one stored source: every chunk to the model (or the cache), the
merged nodes and edges written in one unit with the chunks as evidence.

The chunks were secret-checked when they were ingested: a stored chunk is the checked (or
redacted) text, so what reaches the model here has passed ``clean_content`` already.

Each answer is cached as soon as it arrives (client, chunk content hash, model, prompt
version): a job retried after a 503 or a crash pays only for chunks not yet answered, and
re-ingesting unchanged text costs no model call. A chunk whose answer stays invalid
(``ModelOutputError``) is skipped with a warning and counted; the rest is still written.
A ``ModelCallError`` propagates: the queue backs the job off and runs it again later.

With ``edges`` (the current-edge reader), each chunk is then checked for the edges it
contradicts (``contradictions``); those end in the same write as the graph.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from kenning.domain.access.scope import Scope
from kenning.domain.extraction.contradictions import Checker, Contradictions, contradictions
from kenning.domain.extraction.graph_extraction import (
    EXTRACT_PROMPT_VERSION,
    ChunkExtraction,
    extract_graph,
)
from kenning.domain.extraction.graph_merge import (
    ChunkFinding,
    ExtractedGraph,
    entity_keys,
    extracted_keys,
    merge_extractions,
)
from kenning.domain.extraction.ports import (
    CacheKey,
    CurrentEdges,
    ExtractionCache,
    SourceChunks,
    StoredChunk,
)
from kenning.domain.ingestion.node_properties import NodeProvenance
from kenning.domain.ingestion.ports import AliasResolver, KnowledgeStore, WriteUnit
from kenning.domain.models.ports import ModelClient, ModelOutputError, ModelPriority

logger = logging.getLogger("kenning.extraction")


@dataclass(frozen=True, slots=True)
class ExtractionDeps:
    """The ports and settings one extraction runs with."""

    client: ModelClient
    chunks: SourceChunks
    cache: ExtractionCache
    store: KnowledgeStore
    aliases: AliasResolver
    model: str
    max_retries: int = 3
    # The edges a chunk may contradict; None: no contradiction check.
    edges: CurrentEdges | None = None


@dataclass(frozen=True, slots=True)
class ExtractionReport:
    """What an extraction did: chunks read, answers from the model and from the cache,
    chunks skipped (invalid answers), the graph written (``None``: nothing written, the
    source is gone; its ``endings``: the contradicted edges) and the contradiction check."""

    chunks: int
    model_calls: int
    cached: int
    skipped: int
    graph: ExtractedGraph | None
    contradictions: Contradictions = field(default_factory=Contradictions)


async def extract_source(
    scope: Scope,
    source_urn: str,
    deps: ExtractionDeps,
    *,
    store: KnowledgeStore | None = None,
    checkpoint: Callable[[], Awaitable[None]] | None = None,
) -> ExtractionReport:
    """Extract and store the graph of one source; ``store`` overrides ``deps.store`` for the
    write (a queued job passes the store whose write also ends the job). ``checkpoint`` runs
    before each model call and raises to stop (a queued job: its lease is gone)."""
    started = time.perf_counter()
    chunks = await deps.chunks.chunks_of(scope, source_urn)
    key = CacheKey(scope.client_id, deps.model, EXTRACT_PROMPT_VERSION)
    cached = await deps.cache.get_many(key, {c.content_hash for c in chunks})
    found: list[ChunkFinding] = []
    calls = hits = skipped = 0
    for chunk in chunks:
        answer = _from_cache(cached.get(chunk.content_hash))
        if answer is not None:
            hits += 1
        else:
            calls += 1
            if checkpoint is not None:
                await checkpoint()
            answer = await _ask(chunk, deps)
            if answer is None:
                skipped += 1
                continue
            await deps.cache.put(key, chunk.content_hash, answer.model_dump(mode="json"))
            cached[chunk.content_hash] = answer.model_dump(mode="json")
        found.append((chunk.id, answer))
    aliases = await deps.aliases.resolve(scope.client_id, extracted_keys(found))
    graph = merge_extractions(found, aliases, model=deps.model)
    for warning in graph.warnings:
        logger.warning("extraction.dropped", extra={"source_urn": source_urn, "reason": warning})
    by_id = {c.id: c for c in chunks}
    read = [(by_id[chunk_id], entity_keys(answer, aliases)) for chunk_id, answer in found]
    checked = await _contradictions(scope, source_urn, read, graph, deps, checkpoint)
    graph = dataclasses.replace(graph, endings=checked.endings)
    written = await (store or deps.store).write(lambda unit: _store(unit, scope, source_urn, graph))
    logger.info(
        "extraction.done",
        extra={
            "source_urn": source_urn,
            "scope": scope.describe(),
            "chunks": len(chunks),
            "model_calls": calls,
            "cached": hits,
            "skipped": skipped,
            "nodes": len(graph.nodes),
            "edges": len(graph.edges),
            "contradicted": len(graph.endings),
            "contradiction_calls": checked.model_calls,
            "duration_ms": round((time.perf_counter() - started) * 1000, 2),
        },
    )
    return ExtractionReport(len(chunks), calls, hits, skipped, written, checked)


async def _contradictions(
    scope: Scope,
    source_urn: str,
    read: list[tuple[StoredChunk, set[str]]],
    graph: ExtractedGraph,
    deps: ExtractionDeps,
    checkpoint: Callable[[], Awaitable[None]] | None,
) -> Contradictions:
    """The edges the chunks contradict (none without ``deps.edges``), warnings logged."""
    if deps.edges is None:
        return Contradictions()
    checker = Checker(deps.client, deps.edges, deps.cache, deps.model, deps.max_retries)
    stated = {(e.from_key, e.edge_type, e.to_key) for e in graph.edges}
    found = await contradictions(checker, scope, source_urn, read, stated, checkpoint)
    for warning in found.warnings:
        logger.warning(
            "extraction.contradiction.ignored",
            extra={"source_urn": source_urn, "chunk": warning.line, "reason": warning.reason},
        )
    return found


async def _ask(chunk: StoredChunk, deps: ExtractionDeps) -> ChunkExtraction | None:
    try:
        result = await extract_graph(
            deps.client,
            chunk.content,
            model=deps.model,
            priority=ModelPriority.BACKGROUND,
            max_retries=deps.max_retries,
        )
    except ModelOutputError as error:
        # One unreadable chunk must not cost the source its graph: skip it, say so.
        logger.warning(
            "extraction.chunk.skipped",
            extra={"chunk_id": chunk.id, "attempts": len(error.attempts), "error": error.message},
        )
        return None
    return result.value


def _from_cache(stored: object) -> ChunkExtraction | None:
    if stored is None:
        return None
    try:
        return ChunkExtraction.model_validate(stored)
    except ValueError:
        return None  # an answer this version can no longer read: ask again


async def _store(
    unit: WriteUnit, scope: Scope, source_urn: str, graph: ExtractedGraph
) -> ExtractedGraph | None:
    """Upsert the graph under the source's lock; evidence only on chunks still stored."""
    await unit.lock_source(scope, source_urn)
    current = await unit.source(scope, source_urn)
    if current is None:
        return None  # purged meanwhile: nothing may point at its chunks
    alive = set(current.chunk_ids)
    edges = [
        dataclasses.replace(e, evidence_chunk_ids=kept)
        for e in graph.edges
        if (kept := tuple(c for c in e.evidence_chunk_ids if c in alive))
    ]
    await unit.upsert_nodes(scope, graph.nodes, NodeProvenance(source_urn))
    await unit.upsert_edges(scope, edges)
    # At the writer's scope only; the unit ends only edges that still hold there.
    await unit.end_edges(scope, graph.endings)
    # The keys join the source's mentions: replacing or purging the source then strips
    # this evidence and deletes the nodes left orphaned, as for written references.
    await unit.add_mentions(scope, source_urn, {n.key for n in graph.nodes})
    return dataclasses.replace(graph, edges=tuple(edges))

"""Contradictions a model finds in a source's chunks (``extraction: LLM``): once a chunk's
entities are known, the edges those entities already have are listed to the model, and the
ones it says the chunk contradicts end (``CONTRADICTED``, by ``llm:<model>``, valid until
the chunk's ``observedAt``) in the same write as the extracted graph.

What a model may end is bounded by what it was shown, and what it was shown by the writer:

- only edges stored at exactly the writer's scope are listed (``CurrentEdges.touching``):
  never another client's, nor a wider or sibling scope's one the writer can merely read;
- a source never contradicts what it states itself: edges citing its chunks, and the edges
  this extraction writes, are not listed;
- only an id the prompt listed ends anything; any other id the model names is ignored with
  a warning; and the write unit ends an edge only while it holds at that scope.

A chunk whose entities have no such edge costs no call. An answer that stays invalid ends
nothing (a warning) and never fails the extraction. Answers are cached like extraction's,
by the chunk's text and the exact listing: unchanged text over unchanged edges costs no call.

Example::

    found = await contradictions(checker, scope, "doc:a", [(chunk, {"service:billing"})],
                                 stated=set())
    found.endings  # (EdgeEnding("service:billing", "uses_db", "db:mysql", CONTRADICTED, ...),)
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Final

from kenning.domain.access.scope import Scope
from kenning.domain.extraction.contradiction_prompt import (
    CONTRADICT_PROMPT_VERSION,
    MAX_LISTED,
    ContradictionAnswer,
    chosen,
    contradict_prompt,
    listing,
    listing_text,
)
from kenning.domain.extraction.graph_merge import extracted_by
from kenning.domain.extraction.ports import (
    CacheKey,
    CurrentEdge,
    CurrentEdges,
    ExtractionCache,
    StoredChunk,
)
from kenning.domain.ingestion.extraction_warnings import ExtractionWarning, excerpt
from kenning.domain.ingestion.request import EdgeEnding
from kenning.domain.ingestion.validity import EndReason
from kenning.domain.models.ports import ModelClient, ModelOutputError, ModelPriority
from kenning.domain.models.structured import structured_call

Triple = tuple[str, str, str]
_SOURCE: Final = "contradicts"


@dataclass(frozen=True, slots=True)
class Checker:
    """What contradiction checks run with: the model, the edges they list, the cache."""

    client: ModelClient
    edges: CurrentEdges
    cache: ExtractionCache
    model: str
    max_retries: int = 3


@dataclass(frozen=True, slots=True)
class Contradictions:
    """The edges to end, the answers' ignored ids and invalid answers, the model calls
    made and the answers the cache gave."""

    endings: tuple[EdgeEnding, ...] = ()
    warnings: tuple[ExtractionWarning, ...] = ()
    model_calls: int = 0
    cached: int = 0


@dataclass(frozen=True, slots=True)
class _Check:
    chunk: StoredChunk
    listed: dict[str, CurrentEdge]
    digest: str  # the cache's: the chunk's text and the listing


async def contradictions(
    checker: Checker,
    scope: Scope,
    source_urn: str,
    found: Sequence[tuple[StoredChunk, Collection[str]]],
    stated: Collection[Triple],
    checkpoint: Callable[[], Awaitable[None]] | None = None,
) -> Contradictions:
    """Check each chunk (with its entities' keys, aliases applied) against the edges those
    entities have at ``scope``; ``stated``: the triples this extraction writes."""
    checks = [
        check
        for chunk, keys in found
        if (check := await _check(checker, scope, source_urn, chunk, keys, stated))
    ]
    key = CacheKey(scope.client_id, checker.model, CONTRADICT_PROMPT_VERSION)
    cached = await checker.cache.get_many(key, {c.digest for c in checks})
    endings: dict[Triple, EdgeEnding] = {}
    warnings: list[ExtractionWarning] = []
    calls = hits = 0
    for check in checks:
        answer = _from_cache(cached.get(check.digest))
        if answer is not None:
            hits += 1
        else:
            calls += 1
            if checkpoint is not None:
                await checkpoint()
            answer = await _ask(checker, check, warnings)
            if answer is None:
                continue
            cached[check.digest] = answer.model_dump(mode="json")
            await checker.cache.put(key, check.digest, cached[check.digest])
        edges, unknown = chosen(answer, check.listed)
        warnings += [_ignored(check.chunk, raw) for raw in unknown]
        for edge in edges:
            _keep_earliest(endings, _ending(edge, check.chunk, checker.model))
    return Contradictions(tuple(endings.values()), tuple(warnings), calls, hits)


async def _check(
    checker: Checker,
    scope: Scope,
    source_urn: str,
    chunk: StoredChunk,
    keys: Collection[str],
    stated: Collection[Triple],
) -> _Check | None:
    """The chunk's check, or None when its entities have no edge to list."""
    if not keys:
        return None
    current = await checker.edges.touching(
        scope, keys, valid_by=chunk.observed_at, excluding_source=source_urn, limit=MAX_LISTED
    )
    listed = listing([e for e in current if (e.from_key, e.edge_type, e.to_key) not in stated])
    if not listed:
        return None
    text = f"{chunk.content_hash}\n{listing_text(listed)}"
    return _Check(chunk, listed, hashlib.sha256(text.encode()).hexdigest())


async def _ask(
    checker: Checker, check: _Check, warnings: list[ExtractionWarning]
) -> ContradictionAnswer | None:
    prompt = contradict_prompt(
        checker.model,
        check.chunk.content,
        check.listed,
        priority=ModelPriority.BACKGROUND,
        max_retries=checker.max_retries,
    )
    try:
        return (await structured_call(checker.client, prompt)).value
    except ModelOutputError as error:
        # A malformed answer must not cost the source its graph: nothing ends, it is said.
        reason = (
            f"chunk {check.chunk.id}: the model's answer stayed invalid after "
            f"{len(error.attempts)} attempts: no contradiction applied"
        )
        warnings.append(
            ExtractionWarning(_SOURCE, check.chunk.ordinal + 1, excerpt(error.message), reason)
        )
        return None


def _from_cache(stored: object) -> ContradictionAnswer | None:
    if stored is None:
        return None
    try:
        return ContradictionAnswer.model_validate(stored)
    except ValueError:
        return None  # an answer this version can no longer read: ask again


def _ignored(chunk: StoredChunk, raw: str) -> ExtractionWarning:
    reason = f"chunk {chunk.id}: {excerpt(raw)!r} is no edge listed to the model: nothing ended"
    return ExtractionWarning(_SOURCE, chunk.ordinal + 1, excerpt(raw), reason)


def _ending(edge: CurrentEdge, chunk: StoredChunk, model: str) -> EdgeEnding:
    by = extracted_by(model)
    reason = EndReason.CONTRADICTED
    return EdgeEnding(edge.from_key, edge.edge_type, edge.to_key, reason, by, chunk.observed_at)


def _keep_earliest(endings: dict[Triple, EdgeEnding], ending: EdgeEnding) -> None:
    """One ending per edge: the earliest chunk that contradicts it ends it."""
    triple = (ending.from_key, ending.edge_type, ending.to_key)
    held = endings.get(triple)
    if held is None or (
        ending.valid_at is not None and (held.valid_at is None or ending.valid_at < held.valid_at)
    ):
        endings[triple] = ending

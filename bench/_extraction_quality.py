"""Extraction quality: every labelled document through Kenning's own extraction (the prompt
and call of ``graph_extraction``, the merge of ``graph_merge``) against a model, scored
against its labels. The model's time per document is measured around each call.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from bench._extraction_scoring import (
    DocumentScore,
    Prediction,
    SetScore,
    score_document,
    score_set,
)
from bench._extraction_set import LabelledDocument, LabelledSet
from kenning.domain.extraction.graph_extraction import extract_graph
from kenning.domain.extraction.graph_merge import merge_extractions
from kenning.domain.models.ports import (
    ModelCallError,
    ModelClient,
    ModelOutputError,
    ModelPriority,
)

TRANSIENT_TRIES = 4
TRANSIENT_PAUSE_S = 2.0


@dataclass
class QualityRun:
    """Scores, model seconds and attempts per document, and what went wrong."""

    model: str
    score: SetScore = field(default_factory=lambda: score_set([]))
    model_seconds: list[float] = field(default_factory=list)
    attempts: list[int] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)  # documents with no valid answer
    dropped: int = 0  # relations the merge dropped (unknown end, self-loop)


@dataclass(frozen=True, slots=True)
class _Extracted:
    prediction: Prediction
    seconds: float
    attempts: int
    dropped: int = 0
    invalid: bool = False


async def _extract(
    client: ModelClient, doc: LabelledDocument, *, model: str, max_retries: int
) -> _Extracted:
    """One document's prediction and model time; transient errors are waited out."""
    for attempt in range(1, TRANSIENT_TRIES + 1):
        started = time.perf_counter()
        try:
            found = await extract_graph(
                client, doc.text, model=model, priority=ModelPriority.BACKGROUND,
                max_retries=max_retries,
            )  # fmt: skip
        except ModelOutputError as error:
            seconds = time.perf_counter() - started
            return _Extracted(Prediction.of([], []), seconds, len(error.attempts), invalid=True)
        except ModelCallError as error:
            if not error.transient or attempt == TRANSIENT_TRIES:
                raise
            await asyncio.sleep(error.retry_after or TRANSIENT_PAUSE_S * attempt)
            continue
        graph = merge_extractions([(doc.id, found.value)], {}, model=model)
        prediction = Prediction.of(
            (n.key for n in graph.nodes), ((e.from_key, e.edge_type, e.to_key) for e in graph.edges)
        )
        seconds = found.duration_ms / 1000
        return _Extracted(prediction, seconds, len(found.attempts), len(graph.warnings))
    raise AssertionError("unreachable")


async def measure_quality(
    client: ModelClient, labelled: LabelledSet, *, model: str, max_retries: int = 3
) -> QualityRun:
    """Extract every document in turn (one at a time: the model's own speed is measured)."""
    run = QualityRun(model)
    scores: list[DocumentScore] = []
    for doc in labelled.documents:
        found = await _extract(client, doc, model=model, max_retries=max_retries)
        if found.invalid:
            run.invalid.append(doc.id)
        scores.append(score_document(doc, found.prediction))
        run.model_seconds.append(found.seconds)
        run.attempts.append(found.attempts)
        run.dropped += found.dropped
    run.score = score_set(scores)
    return run

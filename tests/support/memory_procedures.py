"""Procedural memory's test helpers: an embedder whose similarity follows shared words, an
in-memory ``ProcedureStore`` for unit tests, and procedure drafts."""

from __future__ import annotations

import hashlib
import math
import re
import uuid
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from kenning.domain.memory.procedures import (
    MIN_SIMILARITY,
    Procedure,
    ProcedureDraft,
    ProcedureMatch,
    ProcedureSource,
    ProcedureStep,
    Saved,
)
from kenning.domain.priorities import BACKGROUND_PRIORITY

T0 = datetime(2026, 1, 1, tzinfo=UTC)


class WordEmbedder:
    """Unit bag-of-words vectors: texts sharing words are similar, texts sharing none are
    orthogonal (the hash embedder makes every pair unrelated, which tests nothing about
    similarity). Records each call's texts and priority."""

    def __init__(self, dimension: int) -> None:
        self.model = f"words-{dimension}"
        self.dimension = dimension
        self.calls: list[tuple[list[str], int]] = []

    def vector(self, text: str) -> list[float]:
        """The unit vector of ``text``'s lower-cased words."""
        vector = [0.0] * self.dimension
        for word in re.findall(r"[a-z0-9]+", text.lower()):
            slot = int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "big")
            vector[slot % self.dimension] += 1.0
        norm = math.sqrt(sum(v * v for v in vector))
        return [v / norm for v in vector] if norm else [1.0] + [0.0] * (self.dimension - 1)

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        self.calls.append((list(texts), priority))
        return [self.vector(text) for text in texts]

    async def aclose(self) -> None:
        return None


def draft(
    trigger: str = "deploy the web app",
    description: str = "Build, test and roll out the web app.",
    source: ProcedureSource = ProcedureSource.LEARNED,
    steps: Sequence[ProcedureStep] | None = None,
) -> ProcedureDraft:
    """A valid draft unless told otherwise."""
    if steps is None:
        steps = [ProcedureStep("coder", "run_tests", {"suite": "unit"})]
    return ProcedureDraft(trigger, description, steps, source)


def procedure(
    source: ProcedureSource = ProcedureSource.LEARNED,
    *,
    runs: int = 0,
    successes: int = 0,
    last_used: datetime | None = None,
    created_at: datetime = T0,
    id: str = "p",
) -> Procedure:
    """A stored procedure with the given track record."""
    return Procedure(
        id=id, client_id="acme", trigger_pattern="t", description="d",
        steps=(ProcedureStep("a", "b", {}),), source=source, usage_count=runs,
        success_count=successes, last_used=last_used, created_by="key",
        created_at=created_at, updated_at=created_at,
    )  # fmt: skip


class FakeProcedureStore:
    """The ``ProcedureStore`` port in memory, confined to a client like the real one."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[Procedure, list[float]]] = {}

    async def save(
        self, client_id: str, draft: ProcedureDraft, embedding: Sequence[float], created_by: str
    ) -> Saved:
        same = [
            stored for stored, _ in self.rows.values()
            if (stored.client_id, stored.trigger_pattern.lower(), stored.source, stored.user_key)
            == (client_id, draft.trigger_pattern.lower(), draft.source, draft.owner.user_key)
        ]  # fmt: skip
        saved = Procedure(
            id=str(uuid.uuid4()), client_id=client_id, trigger_pattern=draft.trigger_pattern,
            description=draft.description, steps=tuple(draft.steps), source=draft.source,
            usage_count=0, success_count=0, last_used=None, created_by=created_by,
            created_at=T0, updated_at=T0, user_key=draft.owner.user_key,
            agent_id=draft.owner.agent_id,
        )  # fmt: skip
        if same:  # the next version of the procedure of this trigger, source and user
            saved = replace(saved, id=same[0].id, version=same[0].version + 1)
        self.rows[saved.id] = (saved, list(embedding))
        return Saved(saved, same[0] if same else None)

    async def candidates(
        self,
        client_id: str,
        trigger: str | None,
        embedding: Sequence[float],
        limit: int,
        user_key: str | None = None,
    ) -> list[ProcedureMatch]:
        found: list[ProcedureMatch] = []
        for stored, vector in self.rows.values():
            if stored.client_id != client_id or stored.user_key not in (None, user_key):
                continue
            similarity = sum(a * b for a, b in zip(vector, embedding, strict=True))
            exact = trigger is not None and stored.trigger_pattern.lower() == trigger.lower()
            if exact or similarity >= MIN_SIMILARITY:
                found.append(ProcedureMatch(stored, exact, similarity))
        return found[:limit]

    async def record_run(
        self, client_id: str, procedure_id: str, success: bool
    ) -> Procedure | None:
        row = self.rows.get(procedure_id)
        if row is None or row[0].client_id != client_id:
            return None
        stored, vector = row
        ran = replace(
            stored,
            usage_count=stored.usage_count + 1,
            success_count=stored.success_count + int(success),
            last_used=T0,
        )
        self.rows[procedure_id] = (ran, vector)
        return ran

"""Procedural memory: how a client's agents do a recurring task, step by step.

A procedure is a trigger (``"deploy the web app"``), a description and steps
``[{agent, action, parameters}]``; it is ``USER_DEFINED`` (a person wrote it) or ``LEARNED``
(an agent kept what worked). Procedures belong to one client; every read and write names it.

``find_procedures`` returns the exact trigger matches (case and spacing ignored) and the
procedures whose trigger and description are semantically similar to the query (cosine
similarity of embeddings at least ``MIN_SIMILARITY``). Every ``USER_DEFINED`` procedure comes
before every ``LEARNED`` one: a person's instructions win over what an agent learned.
``USER_DEFINED`` ones are ordered by how well they match (``match``, then id); ``LEARNED``
ones by

    score = match * (s + 1) / (n + 2) * 0.5 ** (Δ / H)

where ``match`` is 1 for an exact trigger match and the cosine similarity otherwise, ``s`` the
successful runs of ``n`` runs (the +1/+2 prior lets one lucky run not beat 95 of 100 and
gives an untried procedure 0.5), ``Δ`` the days since ``lastUsed`` (since creation when never
run) and ``H = HALF_LIFE_DAYS`` (30): a procedure unused for a month counts half as much.

``record_procedure_run`` adds one run, atomically in the store, so concurrent runs lose none.
"""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Final, Protocol

from kenning.domain.embedding import Embedder, embed_texts
from kenning.domain.errors import NotFoundError, TooLargeError, ValidationError
from kenning.domain.ingestion.secrets.scan import SecretPolicy, apply_policy
from kenning.domain.retrieval.search import QUERY_PRIORITY

MAX_TRIGGER: Final = 500
MAX_DESCRIPTION: Final = 4000
MAX_STEPS: Final = 50
MAX_NAME: Final = 200
MAX_PARAMETERS_BYTES: Final = 16_000
MAX_LIMIT: Final = 50
MAX_QUERY: Final = 4000
MIN_SIMILARITY: Final = 0.4
HALF_LIFE_DAYS: Final = 30.0
# Candidates the store returns before ranking: far more than any limit, so a well-tried
# learned procedure a little less similar than others is still ranked, not cut in SQL.
CANDIDATES: Final = 200


class ProcedureSource(StrEnum):
    """Who made a procedure: an agent that learned it, or a person."""

    LEARNED = "LEARNED"
    USER_DEFINED = "USER_DEFINED"


@dataclass(frozen=True, slots=True)
class ProcedureStep:
    """One step: which agent does which action with which parameters (a JSON object)."""

    agent: str
    action: str
    parameters: Mapping[str, object]


@dataclass(frozen=True, slots=True)
class ProcedureDraft:
    """A procedure as a caller submits it, before it is checked."""

    trigger_pattern: str
    description: str
    steps: Sequence[ProcedureStep]
    source: ProcedureSource


@dataclass(frozen=True, slots=True)
class Procedure:
    """A stored procedure and its track record."""

    id: str
    client_id: str
    trigger_pattern: str
    description: str
    steps: tuple[ProcedureStep, ...]
    source: ProcedureSource
    usage_count: int
    success_count: int
    last_used: datetime | None
    created_by: str
    created_at: datetime
    updated_at: datetime

    @property
    def success_rate(self) -> float | None:
        """Successful runs over runs; None before the first run."""
        return self.success_count / self.usage_count if self.usage_count else None


@dataclass(frozen=True, slots=True)
class ProcedureMatch:
    """A found procedure: by exact trigger, by similarity (None when not compared), or both,
    and its rank score (see the module docstring; 0 until ranked)."""

    procedure: Procedure
    exact: bool
    similarity: float | None
    score: float = 0.0


class ProcedureStore(Protocol):
    """Where a client's procedures live; every method is confined to ``client_id``."""

    async def save(
        self, client_id: str, draft: ProcedureDraft, embedding: Sequence[float], created_by: str
    ) -> Procedure:
        """Store a checked draft with the embedding of its trigger and description."""
        ...

    async def candidates(
        self, client_id: str, trigger: str | None, embedding: Sequence[float], limit: int
    ) -> list[ProcedureMatch]:
        """Procedures whose normalized trigger equals ``trigger``, and the ``limit`` with the
        highest cosine similarity to ``embedding`` of at least ``MIN_SIMILARITY``."""
        ...

    async def record_run(
        self, client_id: str, procedure_id: str, success: bool
    ) -> Procedure | None:
        """Count one run in a single statement; None when the client has no such procedure."""
        ...


def normalize_trigger(text: str) -> str:
    """A trigger as stored and compared: NFC, runs of whitespace as one space, trimmed.

    Example: ``normalize_trigger("  deploy\\n the app ") == "deploy the app"``.
    """
    return " ".join(unicodedata.normalize("NFC", text).split())


def _text(value: str, field: str, limit: int) -> str:
    if not value.strip():
        raise ValidationError(f"{field} is required", field=field)
    if len(value) > limit:
        raise TooLargeError(f"{field} must be at most {limit} characters", field=field)
    return value


def _name(value: str, where: str) -> str:
    if not value.strip() or len(value) > MAX_NAME or any(ord(c) < 32 for c in value):
        raise ValidationError(f"{where} must be 1..{MAX_NAME} printable characters", field=where)
    return value.strip()


def parameters_json(parameters: Mapping[str, object], where: str = "parameters") -> str:
    """A step's parameters as canonical JSON; ``ValidationError`` unless a JSON object."""
    if not isinstance(parameters, Mapping):
        raise ValidationError(f"{where} must be a JSON object", field=where)
    try:
        text = json.dumps(parameters, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValidationError(f"{where} is not plain JSON: {error}", field=where) from None
    if len(text.encode()) > MAX_PARAMETERS_BYTES:
        raise TooLargeError(f"{where} must be at most {MAX_PARAMETERS_BYTES} bytes", field=where)
    return text


def check_steps(steps: Sequence[ProcedureStep]) -> tuple[ProcedureStep, ...]:
    """The steps, names trimmed; ``ValidationError`` (field ``steps``) naming the bad one."""
    if not steps:
        raise ValidationError("a procedure needs at least one step", field="steps")
    if len(steps) > MAX_STEPS:
        raise TooLargeError(f"a procedure has at most {MAX_STEPS} steps", field="steps")
    checked: list[ProcedureStep] = []
    for index, step in enumerate(steps):
        where = f"steps[{index}]"
        parameters_json(step.parameters, f"{where}.parameters")
        checked.append(
            ProcedureStep(
                agent=_name(step.agent, f"{where}.agent"),
                action=_name(step.action, f"{where}.action"),
                parameters=dict(step.parameters),
            )
        )
    return tuple(checked)


def check_draft(draft: ProcedureDraft) -> ProcedureDraft:
    """The draft as stored: trigger normalized, steps checked, no credential anywhere.

    Raises ``ValidationError`` naming the field, or ``SensitiveContentError``: a stored
    procedure is handed to agents, so a secret in it is refused, never redacted (a redacted
    parameter would make the step fail).
    """
    trigger = normalize_trigger(_text(draft.trigger_pattern, "triggerPattern", MAX_TRIGGER))
    description = _text(draft.description, "description", MAX_DESCRIPTION).strip()
    steps = check_steps(draft.steps)
    apply_policy(trigger, SecretPolicy.REJECT)
    apply_policy(description, SecretPolicy.REJECT)
    for step in steps:
        apply_policy(f"{step.agent}\n{step.action}", SecretPolicy.REJECT)
        apply_policy(parameters_json(step.parameters), SecretPolicy.REJECT)
    return ProcedureDraft(trigger, description, steps, ProcedureSource(draft.source))


def embedding_text(draft: ProcedureDraft) -> str:
    """What a procedure's embedding is computed from: its trigger and description."""
    return f"{draft.trigger_pattern}\n\n{draft.description}"


def learned_score(match: float, procedure: Procedure, now: datetime) -> float:
    """``match * (s + 1) / (n + 2) * 0.5 ** (Δ / H)``, as the module docstring states.

    Example: an exact match run 3 times, 2 successes, last used 30 days ago →
    ``1 * 3/5 * 0.5 == 0.3``.
    """
    rate = (procedure.success_count + 1) / (procedure.usage_count + 2)
    since = procedure.last_used or procedure.created_at
    days = max((now - since).total_seconds(), 0.0) / 86_400
    return max(match, 0.0) * rate * math.pow(0.5, days / HALF_LIFE_DAYS)


def rank(candidates: Sequence[ProcedureMatch], now: datetime, limit: int) -> list[ProcedureMatch]:
    """USER_DEFINED first (by match, then id), then LEARNED by ``learned_score`` (then id)."""
    matches: list[tuple[tuple[int, float, str], ProcedureMatch]] = []
    for found in candidates:
        procedure = found.procedure
        match = 1.0 if found.exact else max(found.similarity or 0.0, 0.0)
        user = procedure.source is ProcedureSource.USER_DEFINED
        score = match if user else learned_score(match, procedure, now)
        key = (0 if user else 1, -score, procedure.id)
        matches.append((key, replace(found, score=score)))
    matches.sort(key=lambda pair: pair[0])
    return [match for _, match in matches[:limit]]


async def save_procedure(
    client_id: str,
    draft: ProcedureDraft,
    created_by: str,
    *,
    store: ProcedureStore,
    embedder: Embedder,
) -> Procedure:
    """Check the draft, embed its trigger and description at interactive priority, store it."""
    if not client_id:
        raise ValidationError(
            "procedures belong to a client: clientId is required", field="clientId"
        )
    checked = check_draft(draft)
    [embedding] = await embed_texts([embedding_text(checked)], QUERY_PRIORITY, embedder)
    return await store.save(client_id, checked, embedding, created_by)


async def find_procedures(
    client_id: str,
    trigger_pattern: str | None,
    query: str | None,
    limit: int,
    now: datetime,
    *,
    store: ProcedureStore,
    embedder: Embedder,
) -> list[ProcedureMatch]:
    """The client's procedures for a trigger or a query, ranked (see the module docstring).

    The query (or, without one, the trigger) is embedded at interactive priority.
    """
    if not 1 <= limit <= MAX_LIMIT:
        raise ValidationError(f"limit must be 1..{MAX_LIMIT}", field="limit")
    trigger = normalize_trigger(trigger_pattern or "") or None
    if trigger is not None and len(trigger) > MAX_TRIGGER:
        raise TooLargeError(
            f"triggerPattern must be at most {MAX_TRIGGER} characters", field="triggerPattern"
        )
    wanted = (query or "").strip() or trigger
    if wanted is None:
        raise ValidationError("give a triggerPattern or a query", field="triggerPattern")
    if len(wanted) > MAX_QUERY:
        raise TooLargeError(f"query must be at most {MAX_QUERY} characters", field="query")
    if not client_id:
        return []
    [embedding] = await embed_texts([wanted], QUERY_PRIORITY, embedder)
    found = await store.candidates(client_id, trigger, embedding, CANDIDATES)
    return rank(found, now, limit)


async def record_procedure_run(
    client_id: str, procedure_id: str, success: bool, *, store: ProcedureStore
) -> Procedure:
    """Count one run of the client's procedure; ``NotFoundError`` for any other id."""
    recorded = await store.record_run(client_id, procedure_id, success) if client_id else None
    if recorded is None:
        raise NotFoundError(f"no procedure {procedure_id!r}", field="id")
    return recorded

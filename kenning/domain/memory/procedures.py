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

import math
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from typing import Final, Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.embedding import Embedder, embed_texts
from kenning.domain.errors import NotFoundError, ScopeError, TooLargeError, ValidationError
from kenning.domain.ingestion.ports import WriteGuard
from kenning.domain.ingestion.reasons import check_reason
from kenning.domain.memory.changes import ChangeLog
from kenning.domain.memory.procedure_checks import MAX_DESCRIPTION as MAX_DESCRIPTION
from kenning.domain.memory.procedure_checks import MAX_NAME as MAX_NAME
from kenning.domain.memory.procedure_checks import MAX_PARAMETERS_BYTES as MAX_PARAMETERS_BYTES
from kenning.domain.memory.procedure_checks import MAX_STEPS as MAX_STEPS
from kenning.domain.memory.procedure_checks import MAX_TRIGGER as MAX_TRIGGER
from kenning.domain.memory.procedure_checks import check_draft as check_draft
from kenning.domain.memory.procedure_checks import check_steps as check_steps
from kenning.domain.memory.procedure_checks import embedding_text as embedding_text
from kenning.domain.memory.procedure_checks import normalize_trigger as normalize_trigger
from kenning.domain.memory.procedure_checks import parameters_json as parameters_json
from kenning.domain.memory.procedure_model import Procedure as Procedure
from kenning.domain.memory.procedure_model import ProcedureDraft as ProcedureDraft
from kenning.domain.memory.procedure_model import ProcedureMatch as ProcedureMatch
from kenning.domain.memory.procedure_model import ProcedureSource as ProcedureSource
from kenning.domain.memory.procedure_model import ProcedureStep as ProcedureStep
from kenning.domain.memory.procedure_model import Saved as Saved
from kenning.domain.memory.procedure_model import guarded_draft, procedure_change
from kenning.domain.priorities import QUERY_PRIORITY

MAX_LIMIT: Final = 50
MAX_QUERY: Final = 4000
MIN_SIMILARITY: Final = 0.4
HALF_LIFE_DAYS: Final = 30.0
# Candidates the store returns before ranking: far more than any limit, so a well-tried
# learned procedure a little less similar than others is still ranked, not cut in SQL.
CANDIDATES: Final = 200


class ProcedureStore(Protocol):
    """Where a client's procedures live; every method is confined to ``client_id``."""

    async def save(
        self, client_id: str, draft: ProcedureDraft, embedding: Sequence[float], created_by: str
    ) -> Saved:
        """Store a checked draft with the embedding of its trigger and description: as the
        next version of the client's procedure of the same trigger (case ignored), source
        and user when there is one, else as a new procedure."""
        ...

    async def candidates(
        self,
        client_id: str,
        trigger: str | None,
        embedding: Sequence[float],
        limit: int,
        user_key: str | None = None,
    ) -> list[ProcedureMatch]:
        """Procedures whose normalized trigger equals ``trigger``, and the ``limit`` with the
        highest cosine similarity to ``embedding`` of at least ``MIN_SIMILARITY``; shared
        ones and ``user_key``'s only."""
        ...

    async def record_run(
        self, client_id: str, procedure_id: str, success: bool
    ) -> Procedure | None:
        """Count one run in a single statement; None when the client has no such procedure."""
        ...


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


def procedure_client(target: Scope) -> str:
    """The client whose procedures a key writing at ``target`` may change. Procedures serve
    the whole client, so only a key that owns the whole client changes them: a project or
    group key would otherwise reach projects its own scope cannot see."""
    if not target.owns(Scope(target.client_id)):
        raise ScopeError(
            "procedures belong to the whole client: change them with a client-wide key",
            field="scope",
        )
    return target.client_id


async def save_procedure(
    client_id: str,
    draft: ProcedureDraft,
    created_by: str,
    *,
    store: ProcedureStore,
    embedder: Embedder,
    changes: ChangeLog | None = None,
    reason: str | None = None,
    guard: WriteGuard | None = None,
) -> Procedure:
    """Check the draft, embed its trigger and description at interactive priority, store it;
    a save that replaces a version is an ``UPDATE`` in ``changes``."""
    if not client_id:
        raise ValidationError(
            "procedures belong to a client: clientId is required", field="clientId"
        )
    if guard is not None:
        draft = await guarded_draft(client_id, draft, guard)
    checked = check_draft(draft)
    why = check_reason(reason)
    [embedding] = await embed_texts([embedding_text(checked)], QUERY_PRIORITY, embedder)
    saved = await store.save(client_id, checked, embedding, created_by)
    if saved.replaced is not None and changes is not None:
        await changes.record(procedure_change(saved.replaced, saved.procedure, created_by, why))
    return saved.procedure


async def find_procedures(
    client_id: str,
    trigger_pattern: str | None,
    query: str | None,
    limit: int,
    now: datetime,
    *,
    store: ProcedureStore,
    embedder: Embedder,
    user_key: str | None = None,
) -> list[ProcedureMatch]:
    """The client's procedures for a trigger or a query, ranked (see the module docstring):
    the shared ones and ``user_key``'s (None: the shared ones only).

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
    found = await store.candidates(client_id, trigger, embedding, CANDIDATES, user_key)
    return rank(found, now, limit)


async def record_procedure_run(
    client_id: str, procedure_id: str, success: bool, *, store: ProcedureStore
) -> Procedure:
    """Count one run of the client's procedure; ``NotFoundError`` for any other id."""
    recorded = await store.record_run(client_id, procedure_id, success) if client_id else None
    if recorded is None:
        raise NotFoundError(f"no procedure {procedure_id!r}", field="id")
    return recorded

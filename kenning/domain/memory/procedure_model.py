"""What a procedure is: its source, steps, a draft as submitted, the stored procedure with its
track record and version, and a match found for a query (``procedures.py`` has the rules)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Any, cast

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.ports import WriteGuard
from kenning.domain.memory.changes import Change, ChangeAction, ItemKind
from kenning.domain.memory.owners import SHARED, Owner


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
    owner: Owner = SHARED


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
    user_key: str | None = None  # None: the whole client's
    agent_id: str | None = None
    version: int = 1

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


@dataclass(frozen=True, slots=True)
class Saved:
    """A saved procedure, and the version it replaced (None when it is new)."""

    procedure: Procedure
    replaced: Procedure | None = None


def procedure_json(procedure: Procedure) -> dict[str, object]:
    """A procedure's version as the change log shows it (its track record is not versioned)."""
    return {
        "version": procedure.version,
        "triggerPattern": procedure.trigger_pattern,
        "description": procedure.description,
        "steps": [
            {"agent": s.agent, "action": s.action, "parameters": dict(s.parameters)}
            for s in procedure.steps
        ],
        "source": procedure.source.value,
        "agentId": procedure.agent_id,
    }


def procedure_change(old: Procedure, new: Procedure | None, by: str, reason: str | None) -> Change:
    """The change from ``old`` to ``new`` (None: deleted) of one procedure."""
    return Change(
        kind=ItemKind.PROCEDURE,
        item_id=old.id,
        item_key=old.trigger_pattern,
        action=ChangeAction.UPDATE if new is not None else ChangeAction.DELETE,
        scope=Scope(old.client_id),
        changed_by=by,
        old=procedure_json(old),
        new=None if new is None else procedure_json(new),
        reason=reason,
        user_key=old.user_key,
    )


async def guarded_draft(client_id: str, draft: ProcedureDraft, guard: WriteGuard) -> ProcedureDraft:
    """``draft`` as the client's tombstones let it be stored (``WriteGuard``): its
    description and steps without an erased subject's names; a trigger or user naming one
    is refused. Runs before the draft's checks, so it leaves odd input as it came."""
    steps = [
        {"agent": s.agent, "action": s.action, "parameters": s.parameters} for s in draft.steps
    ]
    fields: dict[str, object] = {
        "triggerPattern": draft.trigger_pattern,
        "description": draft.description,
        "steps": steps,
        "userKey": draft.owner.user_key or "",
    }
    kept = await guard.guarded_fields(client_id, fields, ("triggerPattern", "userKey"))
    if kept == fields:
        return draft
    redacted = cast(list[dict[str, Any]], kept["steps"])
    return replace(
        draft,
        description=cast(str, kept["description"]),
        steps=[ProcedureStep(s["agent"], s["action"], s["parameters"]) for s in redacted],
    )

"""Procedures that keep their past: ``update_procedure`` makes the next version of one
procedure, ``delete_procedure`` removes it from every read (its versions stay, the last one
marked deleted), ``procedure_history`` reads the versions a page at a time, newest first.

Saving the same trigger, source and user again is an update too (``procedures.save_procedure``).
Every update and delete records a change (``changes.py``). A procedure of another client is
answered exactly as an unknown id: ``NotFoundError`` on ``id``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Protocol

from kenning.domain.embedding import Embedder, embed_texts
from kenning.domain.errors import ConflictError, NotFoundError, ValidationError
from kenning.domain.ingestion.ports import WriteGuard
from kenning.domain.ingestion.reasons import check_reason
from kenning.domain.memory.changes import ChangeLog
from kenning.domain.memory.owners import Owner
from kenning.domain.memory.pages import DEFAULT_PAGE, Page, before_of, check_first, page_of
from kenning.domain.memory.procedure_checks import check_draft, embedding_text
from kenning.domain.memory.procedure_model import (
    Procedure,
    ProcedureDraft,
    ProcedureSource,
    ProcedureStep,
    Saved,
    guarded_draft,
    procedure_change,
)
from kenning.domain.priorities import QUERY_PRIORITY

CURSOR: Final = "procedure-history"


@dataclass(frozen=True, slots=True)
class ProcedureVersion:
    """One stored version of a procedure."""

    seq: int
    procedure_id: str
    version: int
    trigger_pattern: str
    description: str
    steps: tuple[ProcedureStep, ...]
    source: ProcedureSource
    user_key: str | None
    agent_id: str | None
    created_by: str
    created_at: datetime
    superseded_at: datetime | None
    deleted_at: datetime | None


@dataclass(frozen=True, slots=True)
class ProcedureEdit:
    """What an update changes; None keeps the current value."""

    trigger_pattern: str | None = None
    description: str | None = None
    steps: Sequence[ProcedureStep] | None = None
    source: ProcedureSource | None = None


class ProcedureVersionStore(Protocol):
    """Versions of a client's procedures; every method is confined to ``client_id``."""

    async def get(self, client_id: str, procedure_id: str) -> Procedure | None:
        """The client's procedure; None when it has none of that id."""
        ...

    async def update(
        self,
        client_id: str,
        procedure_id: str,
        expected: int,
        draft: ProcedureDraft,
        embedding: Sequence[float],
        created_by: str,
    ) -> Saved | None:
        """Make ``draft`` version ``expected + 1``; None when the procedure is gone or no
        longer at version ``expected``. ``ConflictError`` on ``triggerPattern`` when another
        procedure of the client has the trigger, source and user."""
        ...

    async def delete(self, client_id: str, procedure_id: str) -> Procedure | None:
        """Remove the procedure and mark its current version deleted; None when none."""
        ...

    async def history(
        self, client_id: str, procedure_id: str, first: int, before: int | None
    ) -> list[ProcedureVersion]:
        """Up to ``first`` versions older than ``before`` (newest when None), newest first."""
        ...


def edited(current: Procedure, edit: ProcedureEdit) -> ProcedureDraft:
    """The draft ``edit`` makes of ``current`` (its user and agent stay)."""
    if edit == ProcedureEdit():
        raise ValidationError("give at least one field to change", field="input")
    return ProcedureDraft(
        trigger_pattern=current.trigger_pattern
        if edit.trigger_pattern is None
        else edit.trigger_pattern,
        description=current.description if edit.description is None else edit.description,
        steps=current.steps if edit.steps is None else edit.steps,
        source=current.source if edit.source is None else edit.source,
        owner=Owner(current.user_key, current.agent_id),
    )


def _same(current: Procedure, draft: ProcedureDraft) -> bool:
    return (current.trigger_pattern, current.description, current.steps, current.source) == (
        draft.trigger_pattern,
        draft.description,
        tuple(draft.steps),
        draft.source,
    )


async def update_procedure(
    client_id: str,
    procedure_id: str,
    edit: ProcedureEdit,
    by: str,
    *,
    versions: ProcedureVersionStore,
    embedder: Embedder,
    changes: ChangeLog,
    reason: str | None = None,
    guard: WriteGuard | None = None,
) -> Procedure:
    """The procedure's next version with ``edit`` applied (re-embedded); an unchanged one
    is returned as it is, with no version and no change."""
    why = check_reason(reason)
    current = await versions.get(client_id, procedure_id) if client_id else None
    if current is None:
        raise NotFoundError(f"no procedure {procedure_id!r}", field="id")
    draft = edited(current, edit)
    if guard is not None:
        draft = await guarded_draft(client_id, draft, guard)
    checked = check_draft(draft)
    if _same(current, checked):
        return current
    [embedding] = await embed_texts([embedding_text(checked)], QUERY_PRIORITY, embedder)
    saved = await versions.update(client_id, procedure_id, current.version, checked, embedding, by)
    if saved is None or saved.replaced is None:
        raise ConflictError(
            f"procedure {procedure_id!r} changed meanwhile: read it again", field="id"
        )
    await changes.record(procedure_change(saved.replaced, saved.procedure, by, why))
    return saved.procedure


async def delete_procedure(
    client_id: str,
    procedure_id: str,
    by: str,
    *,
    versions: ProcedureVersionStore,
    changes: ChangeLog,
    reason: str | None = None,
) -> Procedure:
    """Remove the client's procedure from every read; its versions stay in the history."""
    why = check_reason(reason)
    deleted = await versions.delete(client_id, procedure_id) if client_id else None
    if deleted is None:
        raise NotFoundError(f"no procedure {procedure_id!r}", field="id")
    await changes.record(procedure_change(deleted, None, by, why))
    return deleted


async def procedure_history(
    client_id: str,
    procedure_id: str,
    versions: ProcedureVersionStore,
    *,
    first: int = DEFAULT_PAGE,
    after: str | None = None,
) -> Page[ProcedureVersion]:
    """One page of the procedure's versions, newest first, a deleted one included;
    ``NotFoundError`` when the client never had it."""
    check_first(first)
    before = before_of(CURSOR, after)
    found = await versions.history(client_id, procedure_id, first + 1, before) if client_id else []
    if not found and before is None:
        raise NotFoundError(f"no procedure {procedure_id!r}", field="id")
    return page_of(CURSOR, found, first, lambda v: v.seq)

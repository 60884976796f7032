"""Procedural memory's requests, as GraphQL and MCP make them: save a procedure
(``saveProcedure``, ``save_procedure``), find procedures (``procedures``,
``find_procedures``), record a run (``recordProcedureRun``, ``record_procedure_run``), and
change or read its versions (``updateProcedure``, ``deleteProcedure``,
``procedureHistory``). Each settles the client first: any key of it reads, only a
client-wide key writes (``procedure_client``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.embedding import Embedder
from kenning.domain.ingestion.ports import WriteGuard
from kenning.domain.memory.changes import ChangeLog
from kenning.domain.memory.owners import owner_of, user_key_of
from kenning.domain.memory.pages import DEFAULT_PAGE, Page
from kenning.domain.memory.procedure_versions import (
    ProcedureEdit,
    ProcedureVersion,
    ProcedureVersionStore,
    delete_procedure,
    procedure_history,
    update_procedure,
)
from kenning.domain.memory.procedures import (
    Procedure,
    ProcedureDraft,
    ProcedureMatch,
    ProcedureSource,
    ProcedureStep,
    ProcedureStore,
    find_procedures,
    procedure_client,
    record_procedure_run,
    save_procedure,
)


@dataclass(frozen=True, slots=True)
class ProcedureDeps:
    """The stores, embedder, change log and erased subjects procedures run with."""

    store: ProcedureStore
    versions: ProcedureVersionStore
    embedder: Embedder
    changes: ChangeLog
    guard: WriteGuard | None = None


@dataclass(frozen=True, slots=True)
class SaveRequest:
    """A procedure to save; ``scope`` names its client (None: the key's)."""

    trigger_pattern: str
    description: str
    steps: Sequence[ProcedureStep]
    source: ProcedureSource = ProcedureSource.LEARNED
    scope: Scope | None = None
    user_key: str | None = None
    agent_id: str | None = None
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class FindRequest:
    """Procedures by exact trigger or similarity to a query, for ``user_key``."""

    trigger_pattern: str | None = None
    query: str | None = None
    limit: int = 10
    scope: Scope | None = None
    user_key: str | None = None


@dataclass(frozen=True, slots=True)
class ProcedureRequest:
    """One procedure: a run of it to count (``success``), an edit to make, a delete (and
    why), or the page of its versions to read."""

    id: str
    scope: Scope | None = None
    success: bool = False
    edit: ProcedureEdit | None = None
    reason: str | None = None
    first: int = DEFAULT_PAGE
    after: str | None = None


def _writer(caller: CallerScope, scope: Scope | None) -> str:
    return procedure_client(caller.writing(scope))


async def save_for(caller: CallerScope, request: SaveRequest, deps: ProcedureDeps) -> Procedure:
    """Store a procedure for the key's client, embedded for similarity search; the same
    trigger, source and user again makes its next version."""
    client = _writer(caller, request.scope)
    draft = ProcedureDraft(
        trigger_pattern=request.trigger_pattern,
        description=request.description,
        steps=request.steps,
        source=request.source,
        owner=owner_of(request.user_key, request.agent_id),
    )
    return await save_procedure(
        client,
        draft,
        caller.principal.key_id,
        store=deps.store,
        embedder=deps.embedder,
        changes=deps.changes,
        reason=request.reason,
        guard=deps.guard,
    )


async def find_for(
    caller: CallerScope, request: FindRequest, deps: ProcedureDeps
) -> list[ProcedureMatch]:
    """The client's procedures by exact trigger or similarity: USER_DEFINED first, then
    LEARNED by track record."""
    return await find_procedures(
        caller.reading(request.scope).client_id,
        request.trigger_pattern,
        request.query,
        request.limit,
        datetime.now(UTC),
        store=deps.store,
        embedder=deps.embedder,
        user_key=user_key_of(request.user_key),
    )


async def run_for(caller: CallerScope, request: ProcedureRequest, deps: ProcedureDeps) -> Procedure:
    """Count one run of a procedure: usage, last use and success rate change at once."""
    client = _writer(caller, request.scope)
    return await record_procedure_run(client, request.id, request.success, store=deps.store)


async def update_for(
    caller: CallerScope, request: ProcedureRequest, deps: ProcedureDeps
) -> Procedure:
    """Make the procedure's next version (its history keeps the one replaced)."""
    return await update_procedure(
        _writer(caller, request.scope),
        request.id,
        request.edit or ProcedureEdit(),
        caller.principal.key_id,
        versions=deps.versions,
        embedder=deps.embedder,
        changes=deps.changes,
        reason=request.reason,
        guard=deps.guard,
    )


async def delete_for(
    caller: CallerScope, request: ProcedureRequest, deps: ProcedureDeps
) -> Procedure:
    """Remove a procedure from every read; its versions stay in the history."""
    return await delete_procedure(
        _writer(caller, request.scope),
        request.id,
        caller.principal.key_id,
        versions=deps.versions,
        changes=deps.changes,
        reason=request.reason,
    )


async def history_for(
    caller: CallerScope, request: ProcedureRequest, deps: ProcedureDeps
) -> Page[ProcedureVersion]:
    """One page of a procedure's versions, newest first, a deleted one included."""
    return await procedure_history(
        caller.reading(request.scope).client_id,
        request.id,
        deps.versions,
        first=request.first,
        after=request.after,
    )

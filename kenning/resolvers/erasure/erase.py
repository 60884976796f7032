"""The ``eraseSubject`` mutation and the ``erasureReceipts`` query: admin keys, one client.

Each turns its arguments into the request of its use case
(``kenning.domain.erasure.erase_request``: ``erase_for``, ``receipts_for``) and its answer
into GraphQL types.
"""

from __future__ import annotations

from kenning.domain.erasure.erase_request import (
    EraseRequest,
    ReceiptsRequest,
    erase_for,
    receipts_for,
)
from kenning.domain.erasure.model import ErasureMode
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller
from kenning.resolvers.errors import error_members
from kenning.resolvers.queue.jobs import to_handle
from kenning.schema.access.scope import ScopeInput
from kenning.schema.erasure.types import EraseSubjectResult, ErasureReceipt, ErasureRequested


def client_of(scope: ScopeInput | None) -> str | None:
    """The client a scope argument names (None: the key's own)."""
    return scope.client_id if scope is not None else None


@error_members
async def resolve_erase_subject(
    info: Info, key: str, mode: ErasureMode, scope: ScopeInput | None = None
) -> EraseSubjectResult:
    """Queue the erasure of ``key`` from the admin key's client (priority lane)."""
    request = EraseRequest(key, mode, client_of(scope))
    asked = await erase_for(caller(info), request, info.context.runtime.erasure_deps())
    return ErasureRequested(receipt=ErasureReceipt.of(asked.receipt), job=to_handle(asked.job))


async def resolve_erasure_receipts(
    info: Info, first: int = 50, scope: ScopeInput | None = None
) -> list[ErasureReceipt]:
    """The client's erasure receipts, newest first (admin keys only)."""
    request = ReceiptsRequest(first, client_of(scope))
    receipts = await receipts_for(caller(info), request, info.context.runtime.receipts)
    return [ErasureReceipt.of(r) for r in receipts]

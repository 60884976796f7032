"""The ``eraseSubject`` mutation and the ``erasureReceipts`` query: admin keys, one client."""

from __future__ import annotations

from kenning.domain.erasure.erase import erasure_client, request_erasure
from kenning.domain.erasure.model import ErasureMode
from kenning.domain.errors import ValidationError
from kenning.resolvers.access.scope import manage_client, principal
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.resolvers.queue.jobs import to_handle
from kenning.schema.access.scope import ScopeInput
from kenning.schema.erasure.types import EraseSubjectResult, ErasureReceipt, ErasureRequested

MAX_RECEIPTS = 500


@error_members
async def resolve_erase_subject(
    info: Info, key: str, mode: ErasureMode, scope: ScopeInput | None = None
) -> EraseSubjectResult:
    """Queue the erasure of ``key`` from the admin key's client (priority lane)."""
    client = erasure_client(manage_client(info, scope))
    runtime = info.context.runtime
    asked = await request_erasure(
        client, key, mode, principal(info).key_id,
        receipts=runtime.receipts, queue=runtime.queue.jobs,
    )  # fmt: skip
    return ErasureRequested(receipt=ErasureReceipt.of(asked.receipt), job=to_handle(asked.job))


async def resolve_erasure_receipts(
    info: Info, first: int = 50, scope: ScopeInput | None = None
) -> list[ErasureReceipt]:
    """The client's erasure receipts, newest first (admin keys only)."""
    if not 1 <= first <= MAX_RECEIPTS:
        raise ValidationError(f"first must be 1..{MAX_RECEIPTS}", field="first")
    client = erasure_client(manage_client(info, scope))
    receipts = await info.context.runtime.receipts.list(client, first)
    return [ErasureReceipt.of(r) for r in receipts]

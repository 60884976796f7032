"""The erasure requests GraphQL makes (``eraseSubject``, ``erasureReceipts``), as use cases:
the caller must be an admin over the client (``CallerScope.managing``), which an erasure
never spans, then ``erase.request_erasure`` queues it or the receipt book is read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from kenning.domain.access.caller import CallerScope
from kenning.domain.erasure.erase import ErasureRequest, erasure_client, request_erasure
from kenning.domain.erasure.model import ErasureMode, Receipt
from kenning.domain.erasure.ports import ReceiptBook
from kenning.domain.errors import ValidationError
from kenning.domain.queue.ports import JobQueue

MAX_RECEIPTS: Final = 500


@dataclass(frozen=True, slots=True)
class ErasureDeps:
    """Where receipts are kept and the erasure job is queued."""

    receipts: ReceiptBook
    queue: JobQueue


@dataclass(frozen=True, slots=True)
class EraseRequest:
    """A subject to erase by key, how, in which client (None: the key's own)."""

    key: str
    mode: ErasureMode
    client_id: str | None = None


@dataclass(frozen=True, slots=True)
class ReceiptsRequest:
    """The newest ``first`` receipts of a client (None: the key's own)."""

    first: int = 50
    client_id: str | None = None


async def erase_for(
    caller: CallerScope, request: EraseRequest, deps: ErasureDeps
) -> ErasureRequest:
    """Queue the erasure of the request's key from the admin key's client (priority lane)."""
    client = erasure_client(caller.managing(request.client_id))
    return await request_erasure(
        client,
        request.key,
        request.mode,
        caller.principal.key_id,
        receipts=deps.receipts,
        queue=deps.queue,
    )


async def receipts_for(
    caller: CallerScope, request: ReceiptsRequest, receipts: ReceiptBook
) -> list[Receipt]:
    """The client's erasure receipts, newest first (admin keys only)."""
    if not 1 <= request.first <= MAX_RECEIPTS:
        raise ValidationError(f"first must be 1..{MAX_RECEIPTS}", field="first")
    client = erasure_client(caller.managing(request.client_id))
    return await receipts.list(client, request.first)

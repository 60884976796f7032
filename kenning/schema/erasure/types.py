"""Types of erasure: the receipt, its counts per kind, and ``eraseSubject``'s result."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from kenning.domain.erasure.model import KINDS, ErasureMode, Receipt, ReceiptStatus
from kenning.schema.errors import ScopeError, ValidationError
from kenning.schema.queue.types import IngestionHandle

strawberry.enum(
    ErasureMode,
    description="DELETE removes every chunk that names the subject; REDACT rewrites them "
    "with its name, key and aliases replaced by `[erased]` and embeds them again.",
)
strawberry.enum(
    ReceiptStatus,
    name="ErasureStatus",
    description="PENDING while the erasure job waits or runs; DONE once it committed.",
)


@strawberry.type(description="How many rows of one kind an erasure removed or rewrote.")
class ErasureCount:
    kind: str = strawberry.field(
        description="nodes, aliases, edges, chunksDeleted, chunksRedacted, sources, "
        "userKnowledge, sessionEntries, procedures, historyRows, checkIns, extractionCache, "
        "storedFiles, jobs or otherRows."
    )
    count: int


@strawberry.type(
    description="What one erasure removed, counted per kind, when and by whom; never the "
    "subject's key, name or any content."
)
class ErasureReceipt:
    id: strawberry.ID
    mode: ErasureMode
    status: ReceiptStatus
    requested_by: str = strawberry.field(description="The id of the admin key that asked.")
    requested_at: datetime
    finished_at: datetime | None
    job_id: strawberry.ID | None
    counts: list[ErasureCount] = strawberry.field(
        description="Every kind, in a fixed order, zeros included."
    )
    total: int

    @classmethod
    def of(cls, receipt: Receipt) -> ErasureReceipt:
        counts = [ErasureCount(kind=k, count=receipt.count(k)) for k in KINDS]
        return cls(
            id=strawberry.ID(receipt.id),
            mode=receipt.mode,
            status=receipt.status,
            requested_by=receipt.requested_by,
            requested_at=receipt.requested_at,
            finished_at=receipt.finished_at,
            job_id=strawberry.ID(receipt.job_id) if receipt.job_id else None,
            counts=counts,
            total=sum(c.count for c in counts),
        )


@strawberry.type(
    description="The erasure is queued in the priority lane: its receipt (PENDING until the "
    "job commits, then in `erasureReceipts` with its counts) and its job."
)
class ErasureRequested:
    receipt: ErasureReceipt
    job: IngestionHandle


EraseSubjectResult = Annotated[
    ErasureRequested | ValidationError | ScopeError, strawberry.union("EraseSubjectResult")
]

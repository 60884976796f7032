"""What an erasure is about and what it leaves: the subject, the mode, the receipt.

A receipt counts what went per kind (``KINDS``), says when and by whom; it never holds the
subject's key or names, only the receipt's own id, so a receipt is safe to keep forever.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Final


class ErasureMode(StrEnum):
    """What happens to a chunk that names the subject: gone, or rewritten without it."""

    DELETE = "DELETE"
    REDACT = "REDACT"


class ReceiptStatus(StrEnum):
    """PENDING while the erasure job waits or runs; DONE once everything went at once."""

    PENDING = "PENDING"
    DONE = "DONE"


class TombstoneMode(StrEnum):
    """What a later write naming an erased subject gets (``KENNING_ERASURE_TOMBSTONE``)."""

    REDACT = "redact"
    REJECT = "reject"


# Every kind a receipt counts, in the order the API lists them.
KINDS: Final = (
    "nodes",
    "aliases",
    "edges",
    "chunksDeleted",
    "chunksRedacted",
    "sources",
    "userKnowledge",
    "sessionEntries",
    "procedures",
    "historyRows",
    "checkIns",
    "extractionCache",
    "storedFiles",
    "jobs",
    "otherRows",
)

Counts = Counter[str]

# The properties of a subject's nodes that name it: their values are erased wherever they
# occur, as its keys are.
NAME_PROPERTIES: Final = frozenset({"name", "label", "displayName", "fullName", "email"})


@dataclass(frozen=True, slots=True)
class Subject:
    """An erased subject as the store knows it in one client: its canonical key, the keys
    that resolve to it (aliases) and the names its nodes carry (``name``, ``label``)."""

    key: str
    keys: frozenset[str]
    names: frozenset[str]

    def forms(self) -> list[str]:
        """Every text that names it: each key, each key's id, each name."""
        ids = [k.partition(":")[2] for k in self.keys]
        return sorted({*self.keys, *(i for i in ids if i), *self.names})


@dataclass(frozen=True, slots=True)
class Receipt:
    """What one erasure removed, per kind; never the content."""

    id: str
    client_id: str
    mode: ErasureMode
    status: ReceiptStatus
    requested_by: str
    requested_at: datetime
    finished_at: datetime | None = None
    job_id: str | None = None
    counts: Mapping[str, int] = field(default_factory=dict)

    def count(self, kind: str) -> int:
        return int(self.counts.get(kind, 0))

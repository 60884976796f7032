"""The ports an erasure runs with; ``kenning.storage.erasure`` implements them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from kenning.domain.erasure.model import Counts, ErasureMode, Receipt, Subject
from kenning.domain.erasure.names import NameMatch

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class NamedChunk:
    """A chunk that names the subject, as the erasure reads it."""

    id: str
    content: str


@dataclass(frozen=True, slots=True)
class RewrittenChunk:
    """A chunk's redacted content and its new embedding."""

    id: str
    content: str
    embedding: list[float]


class ErasureUnit(Protocol):
    """One transaction of one erasure over one client's rows; nothing outside the client
    is read or written."""

    async def subject(self, client_id: str, key: str) -> Subject:
        """The subject ``key`` (canonical, aliases resolved) names, found or not."""
        ...

    async def remove_memory(self, client_id: str, subject: Subject, names: NameMatch) -> Counts:
        """Remove the sources, user knowledge, session entries and procedures that name the
        subject or belong to it, with their versions and their change history."""
        ...

    async def chunks_naming(
        self, client_id: str, subject: Subject, names: NameMatch
    ) -> list[NamedChunk]:
        """Every chunk left that names the subject or refers to one of its keys."""
        ...

    async def delete_chunks(self, client_id: str, ids: Sequence[str]) -> Counts:
        """Delete chunks with their marks and evidence (edges left with none go too)."""
        ...

    async def rewrite_chunks(
        self, client_id: str, chunks: Sequence[RewrittenChunk], subject: Subject
    ) -> Counts:
        """Store redacted chunks, dropping the subject's keys from their references."""
        ...

    async def remove_graph(self, client_id: str, subject: Subject) -> Counts:
        """Delete the subject's vertices in every scope, every edge touching them, their
        aliases, mentions, intervals and endings."""
        ...

    async def redact_rows(self, client_id: str, names: NameMatch, mode: ErasureMode) -> Counts:
        """Every other row of the client that names the subject loses it: histories,
        check-ins, jobs, properties of other nodes and edges, stored originals (dropped),
        the extraction cache (deleted)."""
        ...

    async def add_tombstones(self, client_id: str, hashes: Mapping[str, int]) -> None:
        """Remember the subject's forms (hash → word count) for later writes."""
        ...

    async def finish_receipt(self, receipt_id: str, counts: Mapping[str, int]) -> None:
        """Record the counts and mark the receipt DONE, in this same transaction."""
        ...


class ErasureStore(Protocol):
    async def erase(self, work: Callable[[ErasureUnit], Awaitable[T]]) -> T:
        """Run ``work`` in one transaction."""
        ...


class ReceiptBook(Protocol):
    """Erasure receipts, per client."""

    async def open(self, client_id: str, mode: ErasureMode, requested_by: str) -> Receipt:
        """A new PENDING receipt."""
        ...

    async def attach_job(self, receipt_id: str, job_id: str) -> None: ...

    async def get(self, receipt_id: str) -> Receipt | None: ...

    async def list(self, client_id: str, limit: int) -> list[Receipt]:
        """The client's receipts, newest first."""
        ...


class TombstoneBook(Protocol):
    """The forms of a client's erased subjects, as hashes."""

    async def match(self, client_id: str) -> NameMatch:
        """What later writes of the client are checked against (empty: nothing erased)."""
        ...

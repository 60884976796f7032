"""A file job's writes commit only while its stored original exists.

A purge deletes a source's originals, an upload's included before its job has indexed it,
and cancels its jobs; a job already past its checks may still be about to write. So every
write of a file job (the file's and each attachment's) first holds the original's row in
its transaction (``WriteUnit.hold_file``): once the purge has deleted it, the write rolls
back with ``OriginalPurgedError`` and the job ends SKIPPED; a write that holds it first
commits, and the purge, waiting for the row, then removes what it wrote.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.ports import KnowledgeStore, WriteUnit

T = TypeVar("T")


class OriginalPurgedError(Exception):
    """The file's original was deleted (purged) before its job wrote; nothing was written."""

    def __init__(self, file_id: str) -> None:
        super().__init__(f"the stored original {file_id} was purged before it was indexed")
        self.file_id = file_id


class HeldOriginalStore:
    """``store`` whose every write first holds the original ``file_id``."""

    def __init__(self, store: KnowledgeStore, file_id: str) -> None:
        self._store, self._file_id = store, file_id

    async def source_hash(self, scope: Scope, source_urn: str) -> str | None:
        return await self._store.source_hash(scope, source_urn)

    async def write(self, work: Callable[[WriteUnit], Awaitable[T]]) -> T:
        async def within(unit: WriteUnit) -> T:
            if not await unit.hold_file(self._file_id):
                raise OriginalPurgedError(self._file_id)
            return await work(unit)

        return await self._store.write(within)

"""Stored originals: the file an ``ingestFile`` was given, kept so that whoever may read its
chunks can download it (``FileStore``; PostgreSQL large objects in
``kenning.storage.sources.files.file_store``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from kenning.domain.access.scope import Scope

# What one read of a stored original returns at most (a download streams slices of it).
SLICE_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class StoredFile:
    """A stored original: the scope its row (and its chunks) are written at, and what it is."""

    id: str
    scope: Scope
    source_urn: str
    filename: str
    media_type: str
    size: int
    sha256: str
    created_at: datetime


class FileStore(Protocol):
    """Keeps originals. Reads are scoped like chunks: a reader sees a file exactly when it
    may see rows written at the file's scope."""

    async def save(
        self, scope: Scope, source_urn: str, filename: str, media_type: str, data: bytes
    ) -> StoredFile:
        """Store ``data`` at ``scope``; the same content of the same source is one file."""
        ...

    async def get(self, file_id: str, reader: Scope) -> StoredFile | None:
        """The file ``reader`` may see; None for an unknown or hidden id alike."""
        ...

    def read(self, file: StoredFile, slice_bytes: int = SLICE_BYTES) -> AsyncIterator[bytes]:
        """The bytes of ``file`` in slices of at most ``slice_bytes``."""
        ...

    async def delete(self, file_id: str, writer: Scope) -> bool:
        """Delete the file stored exactly at ``writer``'s scope (and its bytes)."""
        ...


async def file_bytes(files: FileStore, file: StoredFile) -> bytes:
    """The whole content of ``file``."""
    return b"".join([piece async for piece in files.read(file)])

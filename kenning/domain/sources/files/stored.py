"""Stored originals: the file an ``ingestFile`` was given, kept so that whoever may read its
chunks can download it (``FileStore``; PostgreSQL large objects in
``kenning.storage.sources.files.file_store``).

Secrets never reach storage: a file whose extracted text (or an attachment's) held a
credential is not kept. Under the REJECT policy its row goes with the refusal; under REDACT
its chunks are stored redacted and ``settle`` drops its bytes, leaving a tombstone whose
``not_kept`` says why. Once a file is indexed, the originals its source had before are
superseded and deleted by the same ``settle``."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.off_loop import off_loop

# What one read of a stored original returns at most (a download streams slices of it).
SLICE_BYTES = 1024 * 1024

# The ids ``FileStore.save`` gives: a UUID as ``str(uuid.uuid4())`` spells it.
_FILE_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
FILE_ID_FORM = "a file id is a lowercase UUID, as in the downloadUrl an upload answers"


def is_file_id(text: str) -> bool:
    """Whether ``text`` has the form of a stored file's id (``FILE_ID_FORM``)."""
    return _FILE_ID.fullmatch(text) is not None


class NotKeptReason(StrEnum):
    """Why a file's original is not kept although its chunks are."""

    CREDENTIALS = "CREDENTIALS"  # its text held a credential (stored redacted)
    ERASED = "ERASED"  # it named a subject an erasure removed (eraseSubject)


NOT_KEPT_MESSAGES: dict[NotKeptReason, str] = {
    NotKeptReason.CREDENTIALS: "the original was not kept: its text held credentials "
    "(its chunks are stored redacted)",
    NotKeptReason.ERASED: "the original was not kept: it named a subject that was erased "
    "(its chunks were deleted or redacted)",
}


@dataclass(frozen=True, slots=True)
class StoredFile:
    """A stored original: the scope its row (and its chunks) are written at, and what it is;
    ``not_kept`` set when its bytes are gone on purpose (the row stays to say why)."""

    id: str
    scope: Scope
    source_urn: str
    filename: str
    media_type: str
    size: int
    sha256: str
    created_at: datetime
    not_kept: NotKeptReason | None = None

    @property
    def kept(self) -> bool:
        """Whether the original's bytes can be downloaded."""
        return self.not_kept is None


@dataclass(frozen=True, slots=True)
class FileSweep:
    """What a sweep deleted: originals no job will index, and bytes no original points to."""

    files: int = 0
    objects: int = 0


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

    async def sweep(self, orphaned_for: timedelta) -> FileSweep:
        """Delete the originals no job will index (not indexed, no queued or running job,
        none ended within ``orphaned_for``, older than that) and the stored bytes no
        original points to; any number of processes may sweep at once."""
        ...

    async def settle(self, file: StoredFile, not_kept: NotKeptReason | None) -> int:
        """Mark ``file`` indexed (its source's chunks now come from it), drop its bytes when
        ``not_kept`` says so, and delete the originals of its source and scope indexed before
        it (superseded; ones still queued stay). Idempotent; returns how many were deleted."""
        ...


async def file_bytes(files: FileStore, file: StoredFile) -> bytes:
    """The whole content of ``file``."""
    pieces = [piece async for piece in files.read(file)]
    # bytes.join lets go of the GIL for large copies: off the loop, 100 MB cost it 50 ms.
    return await off_loop(file.size, lambda: b"".join(pieces))

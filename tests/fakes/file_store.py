"""The one fake of the files ``FileStore`` port: originals in memory, read in slices, seen
by readers of the file's client (the full scope rule is the adapter's, audited in
tests/integration/access/test_stored_file_scope.py)."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from kenning.domain.access.scope import Scope
from kenning.domain.sources.files.stored import SLICE_BYTES, FileSweep, NotKeptReason, StoredFile


class FakeFileStore:
    """Keeps files in a dict by id; ``indexed`` lists the settled ids in settling order."""

    def __init__(self) -> None:
        self.files: dict[str, tuple[StoredFile, bytes]] = {}
        self.indexed: list[str] = []

    async def save(
        self, scope: Scope, source_urn: str, filename: str, media_type: str, data: bytes
    ) -> StoredFile:
        sha = hashlib.sha256(data).hexdigest()
        for stored, _ in self.files.values():
            if (stored.scope, stored.source_urn, stored.sha256) == (scope, source_urn, sha):
                return stored
        stored = StoredFile(f"f{len(self.files) + 1}", scope, source_urn, filename, media_type,
                            len(data), sha, datetime.now(UTC))  # fmt: skip
        self.files[stored.id] = (stored, data)
        return stored

    async def get(self, file_id: str, reader: Scope) -> StoredFile | None:
        found = self.files.get(file_id)
        if found is None or reader.client_id not in ("", found[0].scope.client_id):
            return None
        return found[0]

    async def read(self, file: StoredFile, slice_bytes: int = SLICE_BYTES) -> AsyncIterator[bytes]:
        data = self.files[file.id][1]
        for start in range(0, len(data), slice_bytes):
            yield data[start : start + slice_bytes]

    async def delete(self, file_id: str, writer: Scope) -> bool:
        found = self.files.get(file_id)
        if found is None or found[0].scope != writer:
            return False
        del self.files[file_id]
        return True

    async def sweep(self, orphaned_for: timedelta) -> FileSweep:
        # Jobs are the queue's: the fake sweeps unsettled originals older than the grace.
        cutoff = datetime.now(UTC) - orphaned_for
        gone = [
            file_id
            for file_id, (stored, _) in self.files.items()
            if file_id not in self.indexed and stored.created_at < cutoff
        ]
        for file_id in gone:
            del self.files[file_id]
        return FileSweep(files=len(gone))

    async def settle(self, file: StoredFile, not_kept: NotKeptReason | None) -> int:
        found = self.files.get(file.id)
        if found is None:
            return 0
        if not_kept is not None:
            self.files[file.id] = (replace(found[0], not_kept=not_kept), b"")
        if file.id not in self.indexed:
            self.indexed.append(file.id)
        before = self.indexed[: self.indexed.index(file.id)]
        superseded = [
            other for other in before
            if other in self.files
            and (self.files[other][0].scope, self.files[other][0].source_urn)
            == (file.scope, file.source_urn)
        ]  # fmt: skip
        for other in superseded:
            del self.files[other]
        return len(superseded)

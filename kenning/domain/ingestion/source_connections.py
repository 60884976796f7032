"""Source connections (a mailbox, a drive, a git remote, ...): what is registered, the port
that stores them, and the rule that a revoked connection ingests nothing more."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ConflictError, TooLargeError, ValidationError
from kenning.domain.ingestion.request import IngestRequest

_AUTHORITY = re.compile(r"^[a-z][a-z0-9_.-]{0,99}$")
_ID = re.compile(r"^[^\x00-\x1f]{1,200}$")
MAX_CURSOR_VALUE = 4096
# The source kind of a connection's own summary document, always allowed.
SUMMARY_KIND = "connection"


class ConnectionStatus(StrEnum):
    """Whether a connection may still ingest."""

    ACTIVE = "ACTIVE"
    REVOKED = "REVOKED"


class ConnectionRevokedError(ConflictError):
    """The connection was revoked; nothing may be ingested with it any more."""

    def __init__(self, connection_id: str) -> None:
        super().__init__(f"connection {connection_id!r} is revoked", field="connectionId")
        self.connection_id = connection_id


@dataclass(frozen=True, slots=True)
class SyncCursor:
    """Where a connector stopped reading one feed of a connection."""

    name: str
    value: str
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class ConnectionSpec:
    """What ``registerConnection`` is given (never tokens or credentials)."""

    connection_id: str
    authority: str
    label: str
    scope: Scope
    allowed_source_kinds: tuple[str, ...] = ()
    root: str | None = None
    owner: str | None = None

    def __post_init__(self) -> None:
        if not _ID.match(self.connection_id) or not self.connection_id.strip():
            raise ValidationError(
                "connectionId must be 1..200 printable characters", field="connectionId"
            )
        if not _AUTHORITY.match(self.authority):
            raise ValidationError(
                "authority must be a lower-case name such as msft, google, git or custom",
                field="authority",
            )
        if not self.label.strip() or len(self.label) > 500:
            raise ValidationError("label must be 1..500 characters", field="label")
        if self.root is not None and len(self.root) > 2048:
            raise ValidationError("root must be at most 2048 characters", field="root")
        if self.owner is not None and len(self.owner) > 500:
            raise ValidationError("owner must be at most 500 characters", field="owner")
        if len(self.allowed_source_kinds) > 64 or not all(
            _ID.match(kind) for kind in self.allowed_source_kinds
        ):
            raise ValidationError(
                "allowedSourceKinds: at most 64, each 1..200 printable characters",
                field="allowedSourceKinds",
            )


@dataclass(frozen=True, slots=True)
class SourceConnection:
    """A registered connection as stored."""

    spec: ConnectionSpec
    status: ConnectionStatus
    cursors: tuple[SyncCursor, ...]
    created_at: datetime
    updated_at: datetime
    revoked_at: datetime | None = None
    revoke_reason: str | None = None


class ConnectionRegistry(Protocol):
    """Stores connections per client."""

    async def get(self, client_id: str, connection_id: str) -> SourceConnection | None:
        """The connection, if registered."""
        ...

    async def visible(self, reader: Scope, first: int) -> list[SourceConnection]:
        """Connections the reader may see, newest first."""
        ...

    async def register(self, spec: ConnectionSpec) -> SourceConnection:
        """Create, or update an ACTIVE one; a REVOKED one is returned unchanged."""
        ...

    async def set_cursor(
        self, client_id: str, connection_id: str, name: str, value: str
    ) -> SyncCursor | None:
        """Store a cursor of an ACTIVE connection; ``None`` when there is no such one."""
        ...

    async def revoke(self, client_id: str, connection_id: str, reason: str) -> SourceConnection:
        """Mark REVOKED (idempotent; the first reason and time are kept)."""
        ...

    async def source_scopes(self, client_id: str, connection_id: str) -> list[Scope]:
        """Every scope holding sources ingested with the connection."""
        ...


async def check_connection(request: IngestRequest, registry: ConnectionRegistry) -> None:
    """Refuse a request naming a revoked connection, or a source kind it does not allow."""
    await check_connection_use(request.scope, request.connection_id, request.source_kind, registry)


async def check_connection_use(
    scope: Scope,
    connection_id: str | None,
    source_kind: str | None,
    registry: ConnectionRegistry,
) -> None:
    """``check_connection`` for any write naming a connection (graphs and commits too)."""
    if connection_id is None:
        return
    found = await registry.get(scope.client_id, connection_id)
    if found is None:
        return  # ad-hoc connection ids predate the registry and stay allowed
    if found.status is ConnectionStatus.REVOKED:
        raise ConnectionRevokedError(connection_id)
    allowed = found.spec.allowed_source_kinds
    if allowed and source_kind not in (*allowed, SUMMARY_KIND):
        raise ValidationError(
            f"connection {connection_id!r} allows source kinds {', '.join(allowed)}",
            field="sourceKind",
        )


def summary_document(spec: ConnectionSpec) -> str:
    """The short text indexed for a connection: label, authority, root, owner, kinds."""
    lines = [f"Connection: {spec.label}", f"Authority: {spec.authority}"]
    if spec.root:
        lines.append(f"Root: {spec.root}")
    if spec.owner:
        lines.append(f"Owner: {spec.owner}")
    if spec.allowed_source_kinds:
        lines.append(f"Source kinds: {', '.join(spec.allowed_source_kinds)}")
    return "\n".join(lines) + "\n"


def check_cursor(name: str, value: str) -> None:
    """Raise ``ValidationError`` for a cursor name or value that cannot be stored."""
    if not _ID.match(name):
        raise ValidationError("cursorName must be 1..200 printable characters", field="cursorName")
    if len(value) > MAX_CURSOR_VALUE:
        raise TooLargeError(f"value exceeds {MAX_CURSOR_VALUE} characters", field="value")


def sorted_cursors(cursors: Sequence[SyncCursor]) -> tuple[SyncCursor, ...]:
    """Cursors by name, as every read returns them."""
    return tuple(sorted(cursors, key=lambda c: c.name))

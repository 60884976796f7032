"""Types of the connection lifecycle: register, sync cursors, revoke."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from kenning.domain.ingestion.source_connections import ConnectionStatus
from kenning.schema.access.scope import ScopeInfo, ScopeInput
from kenning.schema.errors import NotFoundError, ScopeError, SensitiveContentError, ValidationError
from kenning.schema.ingestion.knowledge_admin import PurgeSuccess
from kenning.schema.queue.types import ConnectionRevokedError, IngestionHandle

strawberry.enum(ConnectionStatus, description="Whether a connection may still ingest.")


@strawberry.input(description="A source connection; never pass tokens or credentials.")
class RegisterConnectionInput:
    connection_id: str
    authority: str = strawberry.field(description="msft, google, clickup, git, custom, ...")
    label: str
    scope: ScopeInput | None = strawberry.field(
        default=None, description="Defaults to the key's scope; may only narrow it."
    )
    allowed_source_kinds: list[str] = strawberry.field(
        default_factory=list, description="Empty allows every source kind."
    )
    root: str | None = strawberry.field(default=None, description="Where the source starts.")
    owner: str | None = None


@strawberry.type(name="SyncCursor", description="Where a connector stopped reading a feed.")
class SyncCursorInfo:
    name: str
    value: str
    updated_at: datetime


@strawberry.type(name="SourceConnection", description="A registered source connection.")
class SourceConnectionInfo:
    connection_id: str
    authority: str
    label: str
    scope: ScopeInfo
    status: ConnectionStatus
    allowed_source_kinds: list[str]
    root: str | None
    owner: str | None
    sync_cursors: list[SyncCursorInfo]
    created_at: datetime
    updated_at: datetime
    revoked_at: datetime | None
    revoke_reason: str | None


@strawberry.type(description="The connection is stored and its summary document queued.")
class RegisterConnectionSuccess:
    connection: SourceConnectionInfo
    summary: IngestionHandle


@strawberry.type(description="Revoked: queued jobs cancelled, everything it produced purged.")
class RevokeConnectionSuccess:
    connection: SourceConnectionInfo
    cancelled_jobs: int
    purged: PurgeSuccess


RegisterConnectionResult = Annotated[
    RegisterConnectionSuccess
    | ValidationError
    | SensitiveContentError
    | ScopeError
    | ConnectionRevokedError,
    strawberry.union("RegisterConnectionResult"),
]
SyncCursorResult = Annotated[
    SyncCursorInfo | ValidationError | ScopeError | NotFoundError | ConnectionRevokedError,
    strawberry.union("SyncCursorResult"),
]
RevokeConnectionResult = Annotated[
    RevokeConnectionSuccess | ValidationError | ScopeError | NotFoundError,
    strawberry.union("RevokeConnectionResult"),
]

"""GraphQL types of ``ingestRepository``: a repository's code queued as one job."""

from __future__ import annotations

from typing import Annotated

import strawberry

from kenning.schema.access.scope import ScopeInput
from kenning.schema.errors import NotFoundError, ScopeError, ValidationError
from kenning.schema.queue.types import ConnectionRevokedError, IngestionHandle


@strawberry.input(
    description="A git repository to read: exactly one of `path` (a directory on the server "
    "under KENNING_REPOSITORY_ROOTS) and `gitUrl` (http, https, ssh or file URL)."
)
class IngestRepositoryInput:
    path: str | None = None
    git_url: str | None = None
    branch: str | None = strawberry.field(
        default=None, description="Defaults to the repository's current branch."
    )
    name: str | None = strawberry.field(
        default=None,
        description="The repository's name in keys (`repo:<name>`); defaults to the "
        "directory's or the URL's last segment.",
    )
    project: str | None = strawberry.field(
        default=None, description="The project to store under (the scope's projectId)."
    )
    scope: ScopeInput | None = None
    priority: int | None = strawberry.field(
        default=None, description="3..9 (the bulk lane); defaults to 5."
    )
    connection_id: str | None = strawberry.field(
        default=None,
        description="The registered connection it comes through: what it stores carries it, "
        "and revoking the connection cancels its job and purges what it stored.",
    )


IngestRepositoryResult = Annotated[
    IngestionHandle | ValidationError | ScopeError | NotFoundError | ConnectionRevokedError,
    strawberry.union("IngestRepositoryResult"),
]

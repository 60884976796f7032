"""The progress of a repository job, as ``IngestionJob.repositoryProgress`` shows it."""

from __future__ import annotations

import strawberry


@strawberry.type(
    description="A repository run's files so far: `planned` to ingest this run; `ingested` "
    "(new or changed), `unchanged` (same content), `refused` (a credential, a bad request: "
    "the branch node's lastRun.refusedFiles says which and why), `skipped` (unparsable or "
    "too large); `done` is their sum."
)
class RepositoryProgress:
    planned: int
    ingested: int
    unchanged: int
    refused: int
    skipped: int
    done: int

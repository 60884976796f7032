"""The ingest use case's dependencies built from the fakes of its ports."""

from __future__ import annotations

from kenning.domain.ingestion.ingest import IngestDeps
from kenning.domain.queue.tasks import JobDeps
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeAliases, FakeStore


def deps(
    store: FakeStore, embedder: FakeEmbedder, aliases: dict[str, str] | None = None
) -> IngestDeps:
    """``IngestDeps`` over ``store``, ``embedder`` and an alias table (none unless given)."""
    return IngestDeps(store=store, aliases=FakeAliases(aliases), embedder=embedder, chunk_limit=200)


def job_deps(
    store: FakeStore, embedder: FakeEmbedder, aliases: dict[str, str] | None = None
) -> JobDeps:
    """What a worker runs plain ingest jobs with, over the same fakes as ``deps``."""
    return JobDeps(ingest=deps(store, embedder, aliases))

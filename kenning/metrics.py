"""Prometheus series of what Kenning does, beside the HTTP ones (same registry).

Series (all prefixed ``kenning_``):

- ``graphql_operations_total{operation,type,outcome}`` and ``graphql_operation_seconds``:
  one per GraphQL operation, by its name (``anonymous`` without one; names beyond
  ``MAX_OPERATION_NAMES`` share ``other``) and outcome (``ok`` or the first error's code).
- ``queue_jobs{lane,status}``: QUEUED and RUNNING jobs of the whole queue, read at scrape.
- ``queue_job_seconds{outcome}``: how long a worker ran a job, by what became of it.
- ``embedding_seconds{priority,outcome}`` and ``embedding_batch_size``: every embed call.
- ``search_seconds{mode}``: every ``search`` query, embedding of the query included.
- ``search_resident_rows``: ``chunk_vectors`` rows held in memory for exact vector search
  (``kenning.storage.retrieval.resident``), set by each process as its copies change;
  summed over live processes.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

MAX_OPERATION_NAMES = 200
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")
_FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
_SLOW = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600)
_BATCH = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)

# (lane, status, count) rows of the live queue, from the storage layer.
QueueCounts = Callable[[], Awaitable[Iterable[tuple[str, str, int]]]]


class ServiceMetrics:
    """The series above, in ``registry``; the observe methods are cheap and never raise."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self._names: set[str] = set()
        self.operations = Counter(
            "kenning_graphql_operations_total",
            "GraphQL operations by name, type and outcome.",
            ["operation", "type", "outcome"],
            registry=registry,
        )
        self.operation_seconds = Histogram(
            "kenning_graphql_operation_seconds",
            "GraphQL operation latency by name and type.",
            ["operation", "type"],
            buckets=_FAST,
            registry=registry,
        )
        self.queue_jobs = Gauge(
            "kenning_queue_jobs",
            "Jobs waiting or running, by lane and status.",
            ["lane", "status"],
            registry=registry,
            # Read from the database at a scrape: with several server processes the latest
            # reading is the queue's, whichever process took it.
            multiprocess_mode="mostrecent",
        )
        self.job_seconds = Histogram(
            "kenning_queue_job_seconds",
            "How long a worker ran a job, by outcome.",
            ["outcome"],
            buckets=_SLOW,
            registry=registry,
        )
        self.embedding_seconds = Histogram(
            "kenning_embedding_seconds",
            "Embedding call latency by router priority and outcome.",
            ["priority", "outcome"],
            buckets=_FAST,
            registry=registry,
        )
        self.embedding_batch = Histogram(
            "kenning_embedding_batch_size",
            "Texts per embedding call.",
            buckets=_BATCH,
            registry=registry,
        )
        self.search_seconds = Histogram(
            "kenning_search_seconds",
            "search query latency by mode.",
            ["mode"],
            buckets=_FAST,
            registry=registry,
        )

        self.resident_rows = Gauge(
            "kenning_search_resident_rows",
            "chunk_vectors rows held in memory for exact vector search.",
            registry=registry,
            multiprocess_mode="livesum",
        )

    def operation_label(self, name: str | None) -> str:
        """A bounded label for an operation name chosen by clients."""
        if not name:
            return "anonymous"
        if not _NAME.match(name):
            return "other"
        if name not in self._names:
            if len(self._names) >= MAX_OPERATION_NAMES:
                return "other"
            self._names.add(name)
        return name

    def observe_operation(self, name: str | None, kind: str, outcome: str, seconds: float) -> None:
        label = self.operation_label(name)
        self.operations.labels(label, kind, outcome).inc()
        self.operation_seconds.labels(label, kind).observe(seconds)

    def observe_job(self, outcome: str, seconds: float) -> None:
        self.job_seconds.labels(outcome).observe(seconds)

    def observe_embedding(self, priority: int, texts: int, seconds: float, ok: bool) -> None:
        self.embedding_seconds.labels(str(priority), "ok" if ok else "error").observe(seconds)
        self.embedding_batch.observe(texts)

    def observe_search(self, mode: str, seconds: float) -> None:
        self.search_seconds.labels(mode.lower()).observe(seconds)

    async def refresh_queue(self, counts: QueueCounts) -> None:
        """Read the live queue's counts now (at scrape time); zero where none."""
        seen = {(lane, status): n for lane, status, n in await counts()}
        for lane in ("PRIORITY", "BULK"):
            for status in ("QUEUED", "RUNNING"):
                self.queue_jobs.labels(lane, status).set(seen.get((lane, status), 0))

"""The one fake of the queue's ``QueueReader`` port: an empty queue, reads counted."""

from __future__ import annotations

from datetime import UTC, datetime

from kenning.domain.access.scope import Scope
from kenning.domain.queue.ports import QueueSnapshot

NOW = datetime(2026, 11, 21, tzinfo=UTC)


class CountingReader:
    """Answers every snapshot with no jobs and ``workers``; ``reads`` counts the calls."""

    def __init__(self) -> None:
        self.reads = 0
        self.workers: tuple[str, ...] = ("w1",)

    async def snapshot(self, reader: Scope, first: int) -> QueueSnapshot:
        self.reads += 1
        return QueueSnapshot(NOW, (), (), (), self.workers)

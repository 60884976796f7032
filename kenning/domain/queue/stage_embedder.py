"""The job's embedder, reporting the EMBEDDING stage on its first call (``runner``)."""

from __future__ import annotations

from collections.abc import Sequence

from kenning.domain.embedding import Embedder
from kenning.domain.priorities import BACKGROUND_PRIORITY
from kenning.domain.queue.jobs import JobStage, Lease
from kenning.domain.queue.ports import WorkQueue


class StageEmbedder:
    """The job's embedder; the first call records the EMBEDDING stage."""

    def __init__(self, inner: Embedder, queue: WorkQueue, lease: Lease) -> None:
        self._inner, self._queue, self._lease = inner, queue, lease
        self._reported = False

    @property
    def model(self) -> str:
        return self._inner.model

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        if not self._reported:
            self._reported = True
            await self._queue.set_stage(self._lease, JobStage.EMBEDDING)
        return await self._inner.embed(texts, priority=priority)

    async def aclose(self) -> None:
        return None  # the worker's embedder outlives the job

"""The real constant-time embedder, counted: what integration tests check the write path
asked of the embedder (not a fake: the vectors are the adapter's own). ``hold`` keeps every
call waiting until ``release``: a test then acts while a job is RUNNING at its embedding."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from kenning.domain.priorities import BACKGROUND_PRIORITY
from kenning.storage.embedders.constant import ConstantTimeEmbedder


class CountingEmbedder:
    """The constant-time embedder, counting the texts it was asked to embed."""

    def __init__(self, dimension: int) -> None:
        self.inner = ConstantTimeEmbedder(dimension)
        self.calls = 0
        self.texts = 0
        self._open = asyncio.Event()
        self._open.set()
        self.waiting = asyncio.Event()  # set once a call waits at a hold

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        self.calls += 1
        self.texts += len(texts)
        if not self._open.is_set():
            self.waiting.set()
            await self._open.wait()
        return await self.inner.embed(texts, priority=priority)

    def hold(self) -> None:
        """Calls from now on wait until ``release``."""
        self.waiting.clear()
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    async def aclose(self) -> None:
        await self.inner.aclose()

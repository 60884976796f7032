"""The real constant-time embedder, counted: what integration tests check the write path
asked of the embedder (not a fake: the vectors are the adapter's own)."""

from __future__ import annotations

from collections.abc import Sequence

from kenning.domain.embedding import BACKGROUND_PRIORITY
from kenning.storage.embedders.constant import ConstantTimeEmbedder


class CountingEmbedder:
    """The constant-time embedder, counting the texts it was asked to embed."""

    def __init__(self, dimension: int) -> None:
        self.inner = ConstantTimeEmbedder(dimension)
        self.calls = 0
        self.texts = 0

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
        return await self.inner.embed(texts, priority=priority)

    async def aclose(self) -> None:
        await self.inner.aclose()

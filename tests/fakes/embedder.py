"""The one fake of the ``Embedder`` port (``kenning.domain.embedding``)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from kenning.domain.embedding import EmbeddingError, EmbeddingErrorKind
from kenning.domain.priorities import BACKGROUND_PRIORITY


class FakeEmbedder:
    """Unit vectors in memory, every call recorded; it can fail, lag or answer one short.

    ``batches`` holds the texts of each call, ``calls`` the texts with their priority. Set
    ``fail`` (at any time) or pass ``error`` to make calls raise; ``delay`` seconds are
    waited by calls of priority ``slow_from_priority`` or higher (a slow bulk lane).
    """

    def __init__(
        self,
        *,
        dimension: int = 3,
        short: bool = False,
        fail: bool = False,
        error: EmbeddingError | None = None,
        delay: float = 0.0,
        slow_from_priority: int = 0,
    ) -> None:
        self.model = "fake"
        self.dimension = dimension
        self.short = short
        self.fail = fail or error is not None
        self.error = error or EmbeddingError("backend down", kind=EmbeddingErrorKind.OPERATIONAL)
        self.delay = delay
        self.slow_from_priority = slow_from_priority
        self.batches: list[list[str]] = []
        self.calls: list[tuple[list[str], int]] = []

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        """One unit vector per text (one fewer when ``short``), or the configured error."""
        self.batches.append(list(texts))
        self.calls.append((list(texts), priority))
        if self.delay and priority >= self.slow_from_priority:
            await asyncio.sleep(self.delay)
        if self.fail:
            raise self.error
        vectors = [[1.0] + [0.0] * (self.dimension - 1) for _ in texts]
        return vectors[:-1] if self.short else vectors

    async def aclose(self) -> None:
        return None

"""``ObservedEmbedder``: any embedder, timed for metrics and watched for readiness.

Readiness asks whether the embedder works now: after a failed call it reports the error
until a later call succeeds, so ``/readyz`` and ``health`` show a backend that went away.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from kenning.domain.embedding import BACKGROUND_PRIORITY, Embedder

# (priority, texts, seconds, ok) of one embed call.
EmbedObserver = Callable[[int, int, float, bool], None]


def _ignore(priority: int, texts: int, seconds: float, ok: bool) -> None:
    return None


class ObservedEmbedder:
    """Wraps ``inner``; same contract, plus ``state()``."""

    def __init__(self, inner: Embedder, observe: EmbedObserver = _ignore) -> None:
        self.inner = inner
        self._observe = observe
        self._failure: str | None = None

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def dimension(self) -> int:
        return self.inner.dimension

    async def warm_up(self) -> None:
        """Load the model now when the inner embedder can (the local one)."""
        warm_up = getattr(self.inner, "warm_up", None)
        if warm_up is not None:
            await warm_up()

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        started = time.perf_counter()
        try:
            vectors = await self.inner.embed(texts, priority=priority)
        except Exception as error:
            self._failure = f"failing: {type(error).__name__}: {error}"[:300]
            self._observe(priority, len(texts), time.perf_counter() - started, False)
            raise
        self._failure = None
        if texts:
            self._observe(priority, len(texts), time.perf_counter() - started, True)
        return vectors

    def state(self) -> tuple[bool, str]:
        """Whether the last call worked (``ok``), else what the last failure was."""
        return (self._failure is None, self._failure or "ok")

    async def aclose(self) -> None:
        await self.inner.aclose()

"""``ObservedEmbedder``: any embedder, timed for metrics and watched for readiness.

Readiness asks whether the embedder works now. A failed call marks it failing; a later
call that works clears that, and while it is failing, ``check()`` (run by ``/readyz`` and
``health``) tries one tiny background embedding at most every ``RECHECK_SECONDS``, so an
idle server notices the backend coming back. What it reports names the kind of failure,
never the backend's address (the error's own message may hold it).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from kenning.domain.embedding import Embedder, EmbeddingError
from kenning.domain.priorities import BACKGROUND_PRIORITY

# (priority, texts, seconds, ok) of one embed call.
EmbedObserver = Callable[[int, int, float, bool], None]

RECHECK_SECONDS = 10.0
RECHECK_TIMEOUT = 5.0
_PROBE = ("kenning readiness probe",)


def _ignore(priority: int, texts: int, seconds: float, ok: bool) -> None:
    return None


def _describe(error: BaseException) -> str:
    if isinstance(error, EmbeddingError):
        return f"failing: {error.kind.value} embedding error"
    return f"failing: {type(error).__name__}"


class ObservedEmbedder:
    """Wraps ``inner``; same contract, plus ``state()`` and ``check()``."""

    def __init__(self, inner: Embedder, observe: EmbedObserver = _ignore) -> None:
        self.inner = inner
        self._observe = observe
        self._failure: str | None = None
        self._checked = 0.0

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
            self._failure = _describe(error)
            self._observe(priority, len(texts), time.perf_counter() - started, False)
            raise
        self._failure = None
        if texts:
            self._observe(priority, len(texts), time.perf_counter() - started, True)
        return vectors

    def state(self) -> tuple[bool, str]:
        """Whether the last call worked (``ok``), else the kind of the last failure."""
        return (self._failure is None, self._failure or "ok")

    async def check(self) -> tuple[bool, str]:
        """``state()``, after trying the embedder again when it is failing (rate-limited)."""
        now = time.monotonic()
        if self._failure is not None and now - self._checked >= RECHECK_SECONDS:
            self._checked = now
            try:
                await asyncio.wait_for(self.embed(_PROBE), RECHECK_TIMEOUT)
            except Exception as error:  # still failing; embed() recorded what
                self._failure = self._failure or _describe(error)
        return self.state()

    async def aclose(self) -> None:
        await self.inner.aclose()

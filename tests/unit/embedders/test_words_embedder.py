"""The words embedder: deterministic unit vectors whose closeness follows shared words."""

from __future__ import annotations

import numpy as np
import pytest

from kenning.settings import Settings
from kenning.storage.embedders.constant import hash_vector
from kenning.storage.embedders.factory import create_embedder
from kenning.storage.embedders.words import WordHashEmbedder, words_vector


def _cos(a: str, b: str, dim: int = 384) -> float:
    return float(np.dot(words_vector(a, dim), words_vector(b, dim)))


def test_vectors_are_unit_length_and_ignore_case_order_and_punctuation() -> None:
    vector = words_vector("Retry, retry worker", 64)
    assert np.linalg.norm(vector) == pytest.approx(1.0)
    assert vector == words_vector("retry WORKER retry", 64)
    assert vector != words_vector("retry worker", 64)  # counts matter


def test_shared_words_bring_texts_closer_than_unrelated_ones() -> None:
    query = "background worker delays invoices"
    near = "the background worker delays pending invoices under load"
    far = "the cache layer truncates unicode file names on cold start"
    assert _cos(query, near) > 0.6
    assert abs(_cos(query, far)) < 0.25
    assert _cos(query, query) == pytest.approx(1.0)


def test_a_text_without_words_falls_back_to_the_hash_vector() -> None:
    assert words_vector("!? —", 16) == hash_vector("!? —", 16)


async def test_the_settings_choose_it_and_it_names_its_model() -> None:
    embedder = create_embedder(Settings(embedder="words", embedding_dim=32))
    assert isinstance(embedder, WordHashEmbedder)
    assert embedder.model == "words-32" and embedder.dimension == 32
    [vector] = await embedder.embed(["two words"])
    assert vector == words_vector("two words", 32)
    with pytest.raises(ValueError):
        WordHashEmbedder(0)

"""``WordHashEmbedder``: unit vectors that reflect the words two texts share, with no model.

Chosen with ``KENNING_EMBEDDER=words``. Each word (lower-cased ``\\w+``) gets a fixed
pseudo-random unit vector (``hash_vector`` of the word); a text's vector is the normalized sum
of its words' vectors, counted as often as they occur (feature hashing in dense form). Texts
that share words point the same way, unrelated ones are near orthogonal, so nearest-neighbour
search has the structure real embeddings give it, at near-zero cost: for benchmarks and
demos of search at a scale no model could embed here. ``hash`` gives every text an unrelated
vector instead, a distribution no approximate index can navigate.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache

import numpy as np

from kenning.storage.embedders.constant import ConstantTimeEmbedder, hash_vector

_WORD = re.compile(r"\w+")


@lru_cache(maxsize=20_000)  # 20,000 words of 384 float32: about 31 MB
def _word_vector(word: str, dimension: int) -> np.ndarray:
    return np.asarray(hash_vector(word, dimension), dtype=np.float32)


def words_vector(text: str, dimension: int) -> list[float]:
    """The unit vector of ``text``'s words; a text without words gets ``hash_vector``'s.

    Example: ``words_vector("Retry, retry worker", 8) == words_vector("retry WORKER retry", 8)``.
    """
    counts = Counter(word.lower() for word in _WORD.findall(text))
    if not counts:
        return hash_vector(text, dimension)
    total = np.zeros(dimension, dtype=np.float64)
    for word, count in counts.items():
        total += count * _word_vector(word, dimension)
    norm = float(np.linalg.norm(total))
    if norm == 0.0:  # words whose vectors cancel exactly: as unlikely as a zero digest
        return hash_vector(text, dimension)
    result: list[float] = (total / norm).tolist()
    return result


class WordHashEmbedder(ConstantTimeEmbedder):
    """Deterministic ``dimension``-float unit vectors from the words of each text.

    Example: ``await WordHashEmbedder(384).embed(["a b"])`` → one vector of norm 1.
    """

    name = "words"

    @staticmethod
    def vector(text: str, dimension: int) -> list[float]:
        return words_vector(text, dimension)

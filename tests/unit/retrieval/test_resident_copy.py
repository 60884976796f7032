"""``resident_copy``: a client's rows decoded from halfvec's binary form, searched only within
the scope numbers asked for, with the answer of every visible row compared in ``float32``."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import pytest

from kenning.storage.retrieval.resident_copy import _margin, decode, nearest, quantize
from tests.support.chunk_rows import unit_vectors

DIM = 16


def _records(vectors: np.ndarray, scopes: list[int]) -> list[dict[str, Any]]:
    """What ``_ROWS`` returns for these rows, in scope order."""
    order = sorted(range(len(scopes)), key=lambda i: scopes[i])
    return [
        {"scope": scopes[i], "id": f"k{i}",
         "raw": struct.pack(">hh", vectors.shape[1], 0) + vectors[i].astype(">f2").tobytes()}
        for i in order
    ]  # fmt: skip


def test_a_copy_holds_unit_rows_in_blocks_by_scope() -> None:
    vectors = unit_vectors(1, 30, DIM) * 3  # stored lengths do not matter to cosine
    scopes = [i % 3 + 7 for i in range(30)]
    copy = decode("acme", 5, _records(vectors, scopes))  # type: ignore[arg-type]
    assert (copy.client_id, copy.version, copy.rows) == ("acme", 5, 30)
    assert {s: b - a for s, (a, b) in copy.blocks.items()} == {7: 10, 8: 10, 9: 10}
    assert copy.halves.dtype == np.float16 and copy.codes.dtype == np.int8
    unit = copy.halves.astype(np.float32) * copy.inverse_norms[:, np.newaxis]
    assert np.allclose(np.linalg.norm(unit, axis=1), 1.0, atol=1e-6)
    approx = copy.codes * copy.steps[:, np.newaxis]
    assert np.allclose(np.linalg.norm(unit - approx, axis=1), copy.slack, atol=1e-6)
    assert 0 < copy.slack.max() < 0.02  # 8 bits, not the row itself
    for scope, (start, stop) in copy.blocks.items():
        assert {int(k[1:]) % 3 + 7 for k in copy.keys[start:stop]} == {scope}


def test_nearest_compares_every_row_of_the_visible_scopes_and_no_other() -> None:
    vectors = unit_vectors(2, 200, DIM)
    scopes = [i % 4 for i in range(200)]
    copy = decode("acme", 1, _records(vectors, scopes))  # type: ignore[arg-type]
    query = unit_vectors(3, 1, DIM)[0] * 2.5
    found = nearest([copy], query, [0, 2, 99], 12)
    halves = vectors.astype(np.float16).astype(np.float32)
    halves /= np.linalg.norm(halves, axis=1, keepdims=True)
    similarity = halves @ (query / np.linalg.norm(query))
    visible = [i for i in range(200) if scopes[i] in (0, 2)]
    best = sorted(visible, key=lambda i: -similarity[i])[:12]
    assert [c.id for c in found] == [f"k{i}" for i in best]
    assert [c.similarity for c in found] == pytest.approx([similarity[i] for i in best], abs=1e-6)
    assert nearest([copy], query, [5], 12) == []


def test_rows_of_unequal_length_are_refused() -> None:
    records = _records(unit_vectors(4, 2, DIM), [1, 1])
    records[1]["raw"] = records[1]["raw"][:-2]
    with pytest.raises(ValueError, match="unequal length"):
        decode("acme", 1, records)  # type: ignore[arg-type]


def _float32_best(
    vectors: np.ndarray, visible: list[int], query: np.ndarray, count: int
) -> tuple[list[int], np.ndarray]:
    """The ``count`` visible rows most similar to ``query`` as the float32 product of every
    half-precision row gives them, with their similarities."""
    halves = vectors.astype(np.float16).astype(np.float32)
    halves /= np.linalg.norm(halves, axis=1, keepdims=True)
    similarity = halves @ (query / np.linalg.norm(query)).astype(np.float32)
    best = sorted(visible, key=lambda i: -similarity[i])[:count]
    return best, similarity


def test_rows_closer_than_the_codes_resolve_are_ranked_by_their_float32_similarity() -> None:
    # 60 near-copies of one direction: their 8-bit similarities to a query along it tie or
    # invert, their float32 ones do not; only the second step can order them.
    rng = np.random.default_rng(5)
    base = unit_vectors(6, 1, DIM)[0]
    vectors = base + rng.normal(0, 1e-2, (60, DIM))
    vectors = np.vstack([vectors, unit_vectors(7, 140, DIM)]).astype(np.float32)
    copy = decode("acme", 1, _records(vectors, [0] * 200))  # type: ignore[arg-type]
    codes, steps = quantize(copy.halves.astype(np.float32) * copy.inverse_norms[:, None])
    coarse = (codes.astype(np.float32) * steps[:, None]) @ base
    best, similarity = _float32_best(vectors, list(range(200)), base, 10)
    assert sorted(range(200), key=lambda i: -coarse[i])[:10] != best  # the codes alone err
    assert np.diff(np.sort(similarity)[-11:]).min() > 1e-6  # and float32 has no ties here
    found = nearest([copy], base, [0], 10)
    assert [c.id for c in found] == [f"k{i}" for i in best]


@pytest.mark.parametrize("seed", range(20))
def test_the_answer_is_every_visible_row_compared_in_float32(seed: int) -> None:
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 40))
    vectors = unit_vectors(seed + 100, 400, DIM)
    vectors[:40] = vectors[0] + rng.normal(0, 0.02, (40, DIM))  # a dense cluster
    scopes = [int(s) for s in rng.integers(0, 6, 400)]
    visible = [int(s) for s in rng.choice(6, 3, replace=False)]
    copy = decode("acme", 1, _records(vectors, scopes))  # type: ignore[arg-type]
    query = vectors[int(rng.integers(0, 400))] + rng.normal(0, 0.05, DIM)
    best, similarity = _float32_best(vectors, [i for i in range(400) if scopes[i] in visible],
                                     query, count)  # fmt: skip
    found = nearest([copy], query, visible, count)
    # In order of similarity, the same values; every row clearly inside the best found (rows
    # tied within float32 rounding at the edge may stand in for each other).
    assert [c.similarity for c in found] == pytest.approx([similarity[i] for i in best], abs=1e-6)
    ranked = np.sort([similarity[i] for i in range(400) if scopes[i] in visible])[::-1]
    edge = ranked[count] if len(ranked) > count else -np.inf  # the best row left out
    assert {f"k{i}" for i in best if similarity[i] > edge + 1e-6} <= {c.id for c in found}


def test_the_bound_holds_for_every_row_and_rules_most_rows_out() -> None:
    dim = 384
    rng = np.random.default_rng(11)
    vectors = unit_vectors(12, 2000, dim)
    vectors[:20] = vectors[0] + rng.normal(0, 0.03, (20, dim))
    copy = decode("acme", 1, _records(vectors, [0] * 2000))  # type: ignore[arg-type]
    unit = copy.halves.astype(np.float32) * copy.inverse_norms[:, np.newaxis]
    for query in (vectors[0], unit_vectors(13, 1, dim)[0]):
        query = query / np.linalg.norm(query)
        codes, steps = quantize(query[np.newaxis, :].astype(np.float32))
        coded = codes[0] * float(steps[0])
        approx = (copy.codes * copy.steps[:, None]).astype(np.float64) @ coded
        bound = np.linalg.norm(query - coded) + copy.slack * np.linalg.norm(coded)
        exact = unit.astype(np.float64) @ query
        assert np.all(np.abs(approx - exact) <= bound)
        kept = copy._not_ruled_out(query.astype(np.float32), [(0, 2000)], np.arange(2000), 10)
        assert 10 <= len(kept) < 2000 // 4  # most rows never reach the second step
        best = np.argsort(-exact)[:10]
        assert set(best) <= set(kept)


def test_edges_a_zero_query_one_row_scopes_and_every_row_wanted() -> None:
    vectors = unit_vectors(14, 6, DIM)
    vectors[5] = 0.0  # a zero row: similarity 0 to anything
    copy = decode("acme", 1, _records(vectors, [0, 1, 1, 2, 2, 2]))  # type: ignore[arg-type]
    found = nearest([copy], np.zeros(DIM, dtype=np.float32), [0, 1, 2], 3)
    assert len(found) == 3 and all(c.similarity == 0.0 for c in found)
    query = vectors[0] * 2
    assert [c.id for c in nearest([copy], query, [0], 5)] == ["k0"]  # a one-row scope
    everything = nearest([copy], query, [2, 1, 0, 1], 50)  # more wanted than visible
    assert sorted(c.id for c in everything) == [f"k{i}" for i in range(6)]  # each once
    assert everything[0].id == "k0" and everything[0].similarity == pytest.approx(1.0, abs=1e-3)
    assert {c.similarity for c in everything if c.id == "k5"} == {0.0}


def test_the_margin_grows_with_the_dimension() -> None:
    assert 0 < _margin(384) < 1e-4 and _margin(4096) > 10 * _margin(384)

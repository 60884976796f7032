"""``resident``'s copy of a client's rows: decoded from halfvec's binary form, searched only
within the scope numbers asked for."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np
import pytest

from kenning.storage.retrieval.resident import decode, nearest
from tests.support.chunk_rows import unit_vectors

DIM = 16


def _records(vectors: np.ndarray, scopes: list[int]) -> list[dict[str, Any]]:
    """What ``_ROWS`` returns for these rows, in scope order."""
    order = sorted(range(len(scopes)), key=lambda i: scopes[i])
    return [
        {"scope": scopes[i], "id": f"k{i}",
         "raw": struct.pack(">hh", DIM, 0) + vectors[i].astype(">f2").tobytes()}
        for i in order
    ]  # fmt: skip


def test_a_copy_holds_unit_rows_in_blocks_by_scope() -> None:
    vectors = unit_vectors(1, 30, DIM) * 3  # stored lengths do not matter to cosine
    scopes = [i % 3 + 7 for i in range(30)]
    copy = decode("acme", 5, _records(vectors, scopes))  # type: ignore[arg-type]
    assert (copy.client_id, copy.version, copy.rows) == ("acme", 5, 30)
    assert {s: b - a for s, (a, b) in copy.blocks.items()} == {7: 10, 8: 10, 9: 10}
    assert np.allclose(np.linalg.norm(copy.matrix, axis=1), 1.0, atol=1e-6)
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

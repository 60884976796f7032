"""One client's resident copy and the search over it: every visible row compared, in two steps.

Comparing a query with every row as ``float32`` streams 1.5 kB a row from memory: at the
reader's 76,000 visible rows of a million chunks, 13 ms of CPU per search, memory-bound.
So a copy keeps each row twice:

- ``codes``: the unit row in 8 bits (``int8``, its own scale, 384 bytes), which the first step
  compares with every visible row (SimSIMD's integer dot product: 2.8-3.3 ms for those rows);
- ``halves``: the row as stored (``halfvec``'s half precision), which the second step compares
  in ``float32``, as the copy did before it had codes, on the rows the first step could not
  rule out.

The first step rules a row out only with a proof. A row's 8-bit similarity differs from its
``float32`` one by at most ``|q - q'| + |x - x'| * |q'|`` (Cauchy-Schwarz; ``x`` and ``q`` the
unit row and query, ``x'`` and ``q'`` their 8-bit forms): the query's terms are computed per
search, the row's (``slack``) when the copy is made. When ``count`` rows are at least ``L``
similar (their 8-bit value less their bound), a row whose 8-bit value plus its bound is under
``L`` holds no place among the best ``count``; only the rest are compared again. A margin for
``float32`` rounding in both steps (``_margin``) widens every bound, so the answer is the one
the ``float32`` product over every visible row gives, up to ties within that rounding.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

import asyncpg
import numpy as np
import simsimd


@dataclass(frozen=True, slots=True, order=True)
class Candidate:
    similarity: float
    client_id: str
    id: str


@dataclass(frozen=True, slots=True)
class ClientCopy:
    """One client's ``chunk_vectors`` rows as of ``version``, sorted by scope number."""

    client_id: str
    version: int
    keys: Sequence[str]
    blocks: dict[int, tuple[int, int]]  # scope number -> its rows' [start, stop)
    halves: np.ndarray  # float16, each row as stored
    inverse_norms: np.ndarray  # float32, 1 / |row| (0 for a zero row)
    codes: np.ndarray  # int8, each unit row times its scale, rounded
    steps: np.ndarray  # float32, 1 / scale: a code's value
    slack: np.ndarray  # float32, |unit row - codes * step|
    # Each key's row, built on the first filtered search that reads this copy (searches run
    # in threads: the lock keeps a second one from reading a half-built map).
    by_key: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    by_key_lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    @property
    def rows(self) -> int:
        return len(self.keys)

    def among(self, query: np.ndarray, ids: Sequence[str], count: int) -> list[Candidate]:
        """The ``count`` rows of ``ids`` most similar to the unit ``query`` (cosine,
        ``float32``), in no particular order; ids the copy lacks are skipped."""
        with self.by_key_lock:
            if not self.by_key:
                self.by_key.update((key, row) for row, key in enumerate(self.keys))
        found = [self.by_key[i] for i in ids if i in self.by_key]
        if not found or count <= 0:
            return []
        rows = np.asarray(found)
        exact = (self.halves[rows].astype(np.float32) @ query) * self.inverse_norms[rows]
        return self._best(rows, exact, count)

    def _best(self, rows: np.ndarray, exact: np.ndarray, count: int) -> list[Candidate]:
        """The ``count`` most similar of ``rows`` (``exact`` their similarities)."""
        if count < len(rows):
            best = np.argpartition(exact, len(exact) - count)[-count:]
        else:
            best = np.arange(len(rows))
        return [Candidate(float(exact[i]), self.client_id, self.keys[rows[i]]) for i in best]

    def nearest(self, query: np.ndarray, visible: Sequence[int], count: int) -> list[Candidate]:
        """The ``count`` rows of the ``visible`` scope numbers most similar to the unit
        ``query`` (cosine, ``float32``), in no particular order."""
        spans = [self.blocks[scope] for scope in dict.fromkeys(visible) if scope in self.blocks]
        if not spans or count <= 0:
            return []
        rows = np.concatenate([np.arange(start, stop) for start, stop in spans])
        if count < len(rows):
            rows = rows[self._not_ruled_out(query, spans, rows, count)]
        exact = (self.halves[rows].astype(np.float32) @ query) * self.inverse_norms[rows]
        return self._best(rows, exact, count)

    def _not_ruled_out(
        self, query: np.ndarray, spans: Sequence[tuple[int, int]], rows: np.ndarray, count: int
    ) -> np.ndarray:
        """Positions in ``rows`` (the spans' rows, in order) the 8-bit comparison cannot rule
        out of the best ``count``: every row whose bound reaches the ``count``-th best lower
        bound."""
        codes, step = quantize(query[np.newaxis, :])
        coded = codes[0].astype(np.float64) * float(step[0])  # the query as its codes say
        q_slack = float(np.linalg.norm(query - coded))
        q_norm = float(np.linalg.norm(coded))
        approx = np.concatenate([_dots(codes, self.codes[a:b]) for a, b in spans])
        approx *= self.steps[rows] * step[0]
        bound = self.slack[rows] * np.float32(q_norm)
        bound += np.float32(q_slack + _margin(len(query)))
        lower = approx - bound
        floor = np.partition(lower, len(lower) - count)[len(lower) - count]
        return np.flatnonzero(approx + bound >= floor)


def _margin(dimension: int) -> float:
    """What ``float32`` rounding can move a similarity of unit vectors, in either step: a sum
    of ``dimension`` products errs by at most ``dimension`` units in the last place of 1
    (2⁻²⁴ each), the scaling by a few more; doubled for the two steps."""
    return 2.0 * (dimension + 4) * 2.0**-24


def _dots(query_codes: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Integer dot products of the one query row with each row of ``codes``, as float32
    (exact up to 1,040 dimensions, 1,040 · 127² < 2²⁴; beyond, within ``_margin``)."""
    out = simsimd.cdist(query_codes, codes, metric="dot", threads=1, out_dtype="float32")
    return np.asarray(out, dtype=np.float32).ravel()


def quantize(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each ``float32`` row as ``int8`` codes scaled to its largest magnitude, and the value
    of one code step per row (0 for a zero row)."""
    peak = np.abs(rows).max(axis=1) if rows.size else np.zeros(len(rows), np.float32)
    steps = (peak / 127.0).astype(np.float32)
    scale = np.divide(1.0, steps, out=np.zeros_like(steps), where=steps > 0)
    codes = np.rint(rows * scale[:, np.newaxis]).clip(-127, 127).astype(np.int8)
    return codes, steps


def nearest(
    copies: Sequence[ClientCopy], query: np.ndarray, visible: Sequence[int], count: int
) -> list[Candidate]:
    """The ``count`` candidates most similar to ``query`` over every copy, most similar first;
    ``query`` need not be unit length."""
    norm = float(np.linalg.norm(query))
    unit = (np.asarray(query, dtype=np.float32) / norm) if norm else np.asarray(query, np.float32)
    found = [c for copy in copies for c in copy.nearest(unit, visible, count)]
    return sorted(found, reverse=True)[:count]


def nearest_among(
    copies: Sequence[ClientCopy], query: np.ndarray, ids: dict[str, list[str]], count: int
) -> list[Candidate]:
    """``nearest`` over the rows of ``ids`` (client id -> chunk ids) only: a filtered search's
    passing chunks."""
    norm = float(np.linalg.norm(query))
    unit = (np.asarray(query, dtype=np.float32) / norm) if norm else np.asarray(query, np.float32)
    found = [c for copy in copies for c in copy.among(unit, ids.get(copy.client_id, []), count)]
    return sorted(found, reverse=True)[:count]


def decode(client_id: str, version: int, records: Sequence[asyncpg.Record]) -> ClientCopy:
    """A copy from ``resident._ROWS``' records (already in scope order)."""
    keys = [r["id"] for r in records]
    scopes = np.fromiter((r["scope"] for r in records), dtype=np.int64, count=len(records))
    if not records:
        empty = np.zeros(0, dtype=np.float32)
        no_rows = np.zeros((0, 0), dtype=np.int8)
        return ClientCopy(
            client_id, version, keys, {}, no_rows.astype(np.float16), empty, no_rows, empty, empty
        )
    widths = {len(r["raw"]) for r in records}
    if len(widths) != 1:
        raise ValueError(f"chunk_vectors of {client_id!r}: embeddings of unequal length")
    width = widths.pop()
    if width < 6 or width % 2:
        raise ValueError(f"chunk_vectors of {client_id!r}: not halfvec's binary form")
    raw = b"".join(r["raw"] for r in records)
    halves = np.frombuffer(raw, dtype=">f2").reshape(len(records), width // 2)[:, 2:]
    halves = halves.astype(np.float16)  # native byte order, contiguous
    del raw  # the joined bytes: as large as the halves, not needed past here
    inverse, codes, steps, slack = _encode(halves)
    starts = np.flatnonzero(np.r_[True, scopes[1:] != scopes[:-1]])
    stops = np.r_[starts[1:], len(records)]
    blocks = {int(scopes[a]): (int(a), int(b)) for a, b in zip(starts, stops, strict=True)}
    return ClientCopy(client_id, version, keys, blocks, halves, inverse, codes, steps, slack)


def _encode(halves: np.ndarray, block: int = 8192) -> tuple[np.ndarray, ...]:
    """Per row of ``halves``: 1 / its norm, its unit form's codes and step, and their slack,
    computed ``block`` rows at a time (a ``float32`` copy of every row would double the
    memory a load takes at its peak)."""
    inverse = np.zeros(len(halves), dtype=np.float32)
    codes = np.zeros(halves.shape, dtype=np.int8)
    steps = np.zeros(len(halves), dtype=np.float32)
    slack = np.zeros(len(halves), dtype=np.float32)
    for start in range(0, len(halves), block):
        part = slice(start, start + block)
        unit = halves[part].astype(np.float32)
        norms = np.linalg.norm(unit, axis=1)
        np.divide(1.0, norms, out=inverse[part], where=norms > 0)
        unit *= inverse[part, np.newaxis]
        codes[part], steps[part] = quantize(unit)
        slack[part] = np.linalg.norm(unit - codes[part] * steps[part, np.newaxis], axis=1)
    return inverse, codes, steps, slack

"""Every branch of the way a nearest-neighbour search takes, without PostgreSQL."""

from __future__ import annotations

import pytest

from kenning.storage.retrieval.search_way import VectorScan, Way, choose_way, probed

DEFAULT = VectorScan()  # exact scan up to 25,000 chunks, resident copies up to 200,000
NO_SCAN = VectorScan(exact_max_rows=0)
NEVER_SCANS = VectorScan(exact_below=-1.0)
NO_COPIES = VectorScan(resident_rows=0)
NOTHING_EXACT = VectorScan(exact_max_rows=0, resident_rows=0)


@pytest.mark.parametrize(
    ("scan", "chunks", "one_client", "way"),
    [
        (DEFAULT, 1_000, True, Way.PROBE),
        (DEFAULT, 25_000, False, Way.PROBE),  # nor a reader of every client
        (DEFAULT, 25_001, True, Way.RESIDENT),
        (DEFAULT, 200_000, True, Way.RESIDENT),
        (DEFAULT, 200_001, True, Way.WALK),  # more than the copies may hold
        (DEFAULT, 50_000, False, Way.WALK),  # nor a reader of every client
        (NO_COPIES, 50_000, True, Way.WALK),
        (NO_COPIES, 10, True, Way.PROBE),
        (NEVER_SCANS, 10, True, Way.WALK),  # counted for the copies, never probed
        (NEVER_SCANS, 30_000, True, Way.RESIDENT),
        (NO_SCAN, 10, True, Way.RESIDENT),  # every count is above a cap of 0
        (NOTHING_EXACT, None, True, Way.WALK),
        (DEFAULT, None, True, Way.WALK),  # not counted: the walk
    ],
)
def test_the_way_for_the_readers_chunks(
    scan: VectorScan, chunks: int | None, one_client: bool, way: Way
) -> None:
    assert choose_way(scan, chunks, one_client=one_client) is way


def test_chunks_are_counted_only_when_an_exact_way_may_answer() -> None:
    assert DEFAULT.counts_chunks and NO_COPIES.counts_chunks and NO_SCAN.counts_chunks
    assert not NOTHING_EXACT.counts_chunks
    assert not VectorScan(exact_below=-1.0, resident_rows=0).counts_chunks


@pytest.mark.parametrize(
    ("best", "way"), [(None, Way.SCAN), (0.1, Way.SCAN), (0.2999, Way.SCAN), (0.3, Way.WALK)]
)
def test_a_probe_below_exact_below_sends_the_search_to_the_scan(
    best: float | None, way: Way
) -> None:
    assert probed(DEFAULT, best) is way

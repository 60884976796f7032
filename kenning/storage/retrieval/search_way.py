"""Which way a nearest-neighbour search takes, decided without PostgreSQL: the HNSW walk,
the exact scan after a probe, or the resident copies (``chunk_search`` runs the way chosen).

``VectorScan`` holds the settings each choice is made by, with the measurements that set
their defaults; ``choose_way`` decides from the chunks the reader's clients hold and
``probed`` from the probe's best similarity. Every branch is unit-tested
(``tests/unit/retrieval/test_search_way.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Literal

from kenning.settings import Settings

MAX_EF_SEARCH = 1000  # pgvector's upper bound for hnsw.ef_search


@dataclass(frozen=True, slots=True)
class VectorScan:
    """pgvector settings of one nearest-neighbour search, each default with a one-line why;
    the measurements that chose them are on the documentation's Benchmarks page ("Search
    thresholds").

    ``ef_search``: candidates kept while walking the graph; 200 lifts sentence-like queries'
    recall@10 to about 0.95 at a million chunks for a few milliseconds (raised to the limit
    when a caller asks for more rows).
    ``max_scan_tuples``: index tuples an iterative scan may visit before it gives up; 50,000
    lets a reader who sees 0.1 % of 50,000 chunks still get its rows.
    ``exact_below``: the probe's best similarity under which the exact scan answers instead
    (-1 never scans); 0.3 lies between what bare names and sentences score.
    ``exact_max_rows``: the most chunks the reader's clients (its own and the global one) may
    hold for an exact scan (0 never scans); it bounds what one scan costs under load.
    ``probe_ef_search``: the probe's ``ef_search``; small, since the probe only needs the best
    similarity.
    ``resident_rows``: the most ``chunk_vectors`` rows one process copies into memory
    (``resident``) for readers whose clients hold more than ``exact_max_rows`` chunks and at
    most this many (``dimension * 3 + 12`` bytes a row; 0 never copies); there an exact
    answer costs a few milliseconds more than the walk.
    ``resident_filter_rows``: a filtered search on the copies compares only the rows of the
    visible chunks that pass its filters (read by the filters' own indexes) when at most this
    many pass; more, and the walk answers (a broad filter slows its iterative scan little).
    ``exact_filter_rows``: an exact scan filtered by a column the side table lacks
    (``entityKeys``, ``connectionIds``, times) compares only the vectors of the visible
    chunks that pass, read by the filter's own index, when at most this many pass (a key
    probe costs about eight rows of the scan); more, the whole scan.
    """

    ef_search: int = 200
    max_scan_tuples: int = 50_000
    iterative_scan: Literal["relaxed_order", "strict_order"] = "relaxed_order"
    exact_below: float = 0.3
    exact_max_rows: int = 25_000
    probe_ef_search: int = 10
    resident_rows: int = 200_000
    resident_filter_rows: int = 20_000
    exact_filter_rows: int = 2_000

    @classmethod
    def from_settings(cls, settings: Settings) -> VectorScan:
        """The scan the ``search_*`` settings describe."""
        return cls(
            ef_search=settings.search_ef_search,
            max_scan_tuples=settings.search_max_scan_tuples,
            exact_below=settings.search_exact_below,
            exact_max_rows=settings.search_exact_max_rows,
            resident_rows=settings.search_resident_rows,
        )

    @property
    def scans_exactly(self) -> bool:
        """Whether a low probe may send a search to the exact scan."""
        return self.exact_below > -1.0 and self.exact_max_rows > 0

    def ef_for(self, limit: int) -> int:
        """The ``ef_search`` for ``limit`` rows."""
        return min(max(self.ef_search, limit), MAX_EF_SEARCH)

    @property
    def counts_chunks(self) -> bool:
        """Whether a search counts the reader's chunks first: only when an exact way may
        answer it."""
        return self.scans_exactly or self.resident_rows > 0


class Way(Enum):
    """How one search is answered."""

    WALK = "walk"  # the HNSW walk (approximate)
    PROBE = "probe"  # a one-row walk first: the scan when the query resembles no chunk
    SCAN = "scan"  # every visible vector compared by PostgreSQL
    RESIDENT = "resident"  # every visible vector compared in this process's memory


def choose_way(scan: VectorScan, chunks: int | None, *, one_client: bool) -> Way:
    """The way for a reader whose clients hold ``chunks`` chunks (``None``: not counted,
    because ``scan.counts_chunks`` is false). Resident copies answer a one-client reader's
    searches above ``exact_max_rows`` and up to ``resident_rows`` chunks (a filtered one
    unless more than ``resident_filter_rows`` pass, see ``VectorScan``); at most
    ``exact_max_rows`` a probe decides; otherwise the walk answers.

    Example: ``choose_way(VectorScan(), 1_000, one_client=True)`` is PROBE.
    """
    if chunks is None or not scan.counts_chunks:
        return Way.WALK
    if chunks > scan.exact_max_rows:
        copies = scan.resident_rows > 0 and one_client
        return Way.RESIDENT if copies and chunks <= scan.resident_rows else Way.WALK
    return Way.PROBE if scan.scans_exactly else Way.WALK


def probed(scan: VectorScan, best: float | None) -> Way:
    """After a probe: the scan when its best similarity is below ``exact_below`` (or it
    found nothing), else the walk."""
    return Way.SCAN if best is None or best < scan.exact_below else Way.WALK

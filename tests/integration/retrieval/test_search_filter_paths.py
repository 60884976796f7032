"""Every search filter narrows inside every way a search is answered (the HNSW walk, the
exact scan, a reader whose unfiltered searches resident copies answer, BM25's top-k and
exhaustive statements): the hits all pass, and as many come back as the limit asks when
that many pass, in the order of the exact filtered answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg
import numpy as np
import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.retrieval.search import SearchFilters
from kenning.settings import Settings
from kenning.storage.retrieval.bm25_sql import Bm25
from kenning.storage.retrieval.chunk_search import PgChunkIndex, VectorScan
from tests.support.chunk_rows import replace_chunks, unit_vectors

pytestmark = pytest.mark.integration

TOTAL = 1200
READER = Scope("acme", "web", "frontend")
START = datetime(2026, 1, 1, tzinfo=UTC)
EXTRA = ("info_type", "source_kind", "connection_id", "graph_refs", "created_at", "observed_at")


@dataclass(frozen=True)
class Row:
    id: str
    vector: np.ndarray
    info_type: str
    source_kind: str
    connection_id: str
    graph_refs: tuple[str, ...]
    created_at: datetime
    observed_at: datetime | None


def _row(i: int, vector: np.ndarray) -> Row:
    return Row(
        id=f"f{i:05d}",
        vector=vector,
        info_type=("context", "instructions", "skills", "preferences")[i % 4],
        source_kind=f"kind{i % 20}",  # kind0: 5 % of the rows
        connection_id=f"conn{i % 10}",
        graph_refs=(f"service:s{i % 25}", "team:core"),
        created_at=START + timedelta(hours=i),
        observed_at=None if i % 7 == 0 else START + timedelta(days=i % 60),
    )


@pytest.fixture(scope="module")
async def rows(pool: asyncpg.Pool, migrated_settings: Settings) -> list[Row]:
    """1,200 chunks of the reader's scope, plus 200 of another client (every filter but the
    connection would let them through); written once for the module, never changed."""
    vectors = unit_vectors(11, TOTAL + 200, migrated_settings.embedding_dim)
    mine = [_row(i, vectors[i]) for i in range(TOTAL)]
    records: list[tuple[object, ...]] = []
    for i, r in enumerate(mine):
        stored = ("acme", "web", "frontend", f"deploy checklist number {i}", r.vector, f"h{i}")
        kept = (r.info_type, r.source_kind, r.connection_id, list(r.graph_refs))
        records.append(
            (r.id, f"doc:{r.id}", 0, "note", *stored, *kept, r.created_at, r.observed_at)
        )
    for i in range(200):
        stored = ("other", "", "", f"deploy checklist other {i}", vectors[TOTAL + i], f"o{i}")
        kept = ("context", "kind0", "conn-of-other", ["service:s0"])
        records.append((f"o{i:05d}", f"doc:o{i}", 0, "note", *stored, *kept, START, START))
    async with pool.acquire() as conn:
        await replace_chunks(conn, records, extra=EXTRA)
    return mine


AT = START + timedelta(hours=300)
DAY_10, DAY_13 = START + timedelta(days=10), START + timedelta(days=13)


def _observed(r: Row) -> bool:
    return r.observed_at is not None and DAY_10 <= r.observed_at < DAY_13


CASES: list[tuple[SearchFilters, Callable[[Row], bool]]] = [
    (SearchFilters(info_types=("skills",)), lambda r: r.info_type == "skills"),
    (SearchFilters(source_kinds=("kind0",)), lambda r: r.source_kind == "kind0"),
    (
        SearchFilters(connection_ids=("conn3", "conn4")),
        lambda r: r.connection_id in {"conn3", "conn4"},
    ),
    (SearchFilters(entity_keys=("service:s7",)), lambda r: "service:s7" in r.graph_refs),
    (SearchFilters(created_after=AT), lambda r: r.created_at >= AT),
    (SearchFilters(created_before=AT), lambda r: r.created_at < AT),
    (SearchFilters(observed_after=DAY_10, observed_before=DAY_13), _observed),
    (
        SearchFilters(source_kinds=("kind0", "kind1"), info_types=("context",)),
        lambda r: r.source_kind in {"kind0", "kind1"} and r.info_type == "context",
    ),
]
WAYS = {
    "walk": VectorScan(ef_search=100, exact_below=-1.0, resident_rows=0),
    "scan": VectorScan(exact_below=1.0, resident_rows=0),  # every probe is "too low"
    # A filter read on the chunks passes more than 5 rows in every case: the whole scan.
    "scan-past-narrow": VectorScan(exact_below=1.0, resident_rows=0, exact_filter_rows=5),
    "resident": VectorScan(exact_max_rows=10, resident_rows=100_000),
}


async def test_a_filter_passing_more_than_the_copies_compare_is_walked(
    rows: list[Row], pool: asyncpg.Pool
) -> None:
    index = PgChunkIndex(pool, VectorScan(exact_max_rows=10, resident_filter_rows=100))
    try:
        await index.warm(READER)
        query = rows[0].vector.tolist()
        narrow = await index.nearest(query, READER, SearchFilters(source_kinds=("kind0",)), 10)
        broad = await index.nearest(query, READER, SearchFilters(created_after=START), 10)
    finally:
        await index.close()
    assert len(narrow) == len(broad) == 10  # 60 pass, then 1,200
    assert dict(index.ways) == {"resident": 1, "walk": 1}


def _exact(rows: list[Row], query: np.ndarray, passes: Callable[[Row], bool]) -> list[str]:
    kept = [r for r in rows if passes(r)]
    kept.sort(key=lambda r: -float(r.vector @ query))
    return [r.id for r in kept[:10]]


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("case", range(len(CASES)))
async def test_nearest_narrows_inside_every_way(
    rows: list[Row], pool: asyncpg.Pool, way: str, case: int
) -> None:
    filters, passes = CASES[case]
    query = unit_vectors(100 + case, 1, rows[0].vector.shape[0])[0]
    index = PgChunkIndex(pool, WAYS[way])
    try:
        await index.warm(READER)  # the copies, where this way has them
        found = [h.chunk.id for h in await index.nearest(query.tolist(), READER, filters, 10)]
    finally:
        await index.close()
    exact = _exact(rows, query, passes)
    by_id = {r.id: r for r in rows}
    assert all(passes(by_id[i]) for i in found), found
    assert len(found) == len(exact) == 10
    assert len(set(found) & set(exact)) >= 9  # the walk is approximate; the scan exact
    if way != "walk":
        assert found == exact
    assert dict(index.ways) == {way.split("-")[0]: 1}


@pytest.mark.parametrize("case", range(len(CASES)))
async def test_keyword_search_narrows_in_every_statement_alike(
    rows: list[Row], pool: asyncpg.Pool, case: int
) -> None:
    filters, passes = CASES[case]
    wanted = sum(1 for r in rows if passes(r))
    by_id = {r.id: r for r in rows}
    # The chunks that pass, scored (narrow_cap large); the top-k statement (every filter
    # passes more than 5 chunks, so a cap of 5 sends the search there), and with a budget
    # of 5 postings, which cuts every list, the exhaustive one.
    answers = []
    for bm25 in (Bm25(), Bm25(narrow_cap=5), Bm25(budget=5, narrow_cap=5)):
        index = PgChunkIndex(pool, VectorScan(resident_rows=0), bm25)
        hits = await index.matching("deploy checklist number 7", READER, filters, 20)
        assert all(passes(by_id[h.chunk.id]) for h in hits)
        assert len(hits) == min(20, wanted)
        answers.append([(h.chunk.id, h.score) for h in hits])
    # The top-k statement reads 1,000 postings of "deploy" of 1,200 and may pick other ties.
    assert answers[0] == answers[2]


async def test_a_connection_of_another_client_answers_as_one_with_no_sources(
    rows: list[Row], pool: asyncpg.Pool
) -> None:
    # A connection only the other client has answers like one nobody has.
    index = PgChunkIndex(pool, VectorScan(resident_rows=0))
    query = rows[0].vector.tolist()
    own = await index.nearest(query, READER, SearchFilters(connection_ids=("conn0",)), 10)
    assert own and all(h.chunk.scope.client_id == "acme" for h in own)
    for connection in ("conn-of-other", "nobody's"):
        found = await index.nearest(query, READER, SearchFilters(connection_ids=(connection,)), 10)
        words = await index.matching(
            "deploy", READER, SearchFilters(connection_ids=(connection,)), 10
        )
        assert found == [] and words == []

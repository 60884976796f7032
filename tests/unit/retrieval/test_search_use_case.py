"""The search use case over a fake index and embedder: validation, modes, fusion, minScore."""

from __future__ import annotations

import asyncio

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.embedding import EmbeddingError
from kenning.domain.errors import ConfigurationError, ValidationError
from kenning.domain.priorities import QUERY_PRIORITY
from kenning.domain.retrieval.search import (
    PRESETS,
    CandidateDepth,
    FusionMethod,
    FusionWeights,
    SearchConfig,
    SearchFilters,
    SearchMode,
    SearchRequest,
    config_for,
    search,
)
from tests.fakes.chunk_index import FakeIndex
from tests.fakes.embedder import FakeEmbedder

READER = Scope("acme", "web", "frontend")


async def run(
    request: SearchRequest,
    index: FakeIndex,
    embedder: FakeEmbedder | None = None,
    config: SearchConfig | None = None,
) -> list[tuple[str, float, int | None, int | None]]:
    hits = await search(
        request, reader=READER, embedder=embedder or FakeEmbedder(), index=index, config=config
    )
    return [(h.chunk.id, h.score, h.vector_rank, h.keyword_rank) for h in hits]


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (SearchRequest(""), "query"),
        (SearchRequest("   \n"), "query"),
        (SearchRequest("x" * 4001), "query"),
        (SearchRequest("q", limit=0), "limit"),
        (SearchRequest("q", limit=101), "limit"),
        (SearchRequest("q", min_score=float("nan")), "minScore"),
        (SearchRequest("q", filters=SearchFilters(kinds=("",))), "kinds"),
        (SearchRequest("q", filters=SearchFilters(tags=tuple("t" * 101))), "tags"),
    ],
)
async def test_invalid_requests_name_the_field_and_touch_nothing(
    request_: SearchRequest, field: str
) -> None:
    index, embedder = FakeIndex(), FakeEmbedder()
    with pytest.raises(ValidationError) as raised:
        await run(request_, index, embedder)
    assert raised.value.field == field
    assert index.asked == [] and embedder.calls == []


async def test_the_limit_maximum_is_the_servers() -> None:
    index = FakeIndex(vector=[("a", 0.9)])
    hits = await search(
        SearchRequest("q", SearchMode.VECTOR, limit=500),
        reader=READER, embedder=FakeEmbedder(), index=index, max_limit=500,
    )  # fmt: skip
    assert [h.chunk.id for h in hits] == ["a"]
    with pytest.raises(ValidationError):
        await search(
            SearchRequest("q", limit=501),
            reader=READER, embedder=FakeEmbedder(), index=index, max_limit=500,
        )  # fmt: skip


async def test_vector_mode_embeds_the_query_once_at_interactive_priority() -> None:
    index, embedder = FakeIndex(vector=[("a", 0.9), ("b", 0.7)]), FakeEmbedder()
    hits = await run(SearchRequest("login bug", SearchMode.VECTOR, limit=5), index, embedder)
    assert hits == [("a", 0.9, 1, None), ("b", 0.7, 2, None)]
    assert embedder.calls == [(["login bug"], QUERY_PRIORITY)]
    assert QUERY_PRIORITY == 1  # before bulk (3), without preempting chat (0)
    assert [(a[0], a[3]) for a in index.asked] == [("nearest", 5)]


async def test_keyword_mode_never_embeds() -> None:
    index, embedder = FakeIndex(keyword=[("k", 0.4)]), FakeEmbedder()
    hits = await run(SearchRequest("login", SearchMode.KEYWORD), index, embedder)
    assert hits == [("k", 0.4, None, 1)]
    assert embedder.calls == []


async def test_reader_and_filters_reach_the_index_unchanged() -> None:
    filters = SearchFilters(kinds=("jira_issue",), tags=("auth",), source_urns=("jira:1",))
    index = FakeIndex()
    await run(SearchRequest("q", SearchMode.HYBRID, filters=filters), index)
    assert {(a[0], a[1], a[2]) for a in index.asked} == {
        ("nearest", READER, filters),
        ("matching", READER, filters),
    }


async def test_hybrid_fuses_both_lists_by_score_and_reports_each_rank() -> None:
    index = FakeIndex(
        vector=[("a", 0.9), ("b", 0.8), ("c", 0.7)],
        keyword=[("b", 0.5), ("d", 0.4)],
    )
    hits = await run(SearchRequest("q", SearchMode.HYBRID, limit=3), index)
    # The mean of the two scores, 0 where a list lacks the chunk: d (0.2) falls below c (0.35).
    assert [(h[0], h[2], h[3]) for h in hits] == [("b", 2, 1), ("a", 1, None), ("c", 3, None)]
    assert [h[1] for h in hits] == [pytest.approx(0.65), pytest.approx(0.45), pytest.approx(0.35)]


async def test_hybrid_rrf_fuses_by_rank_when_configured() -> None:
    index = FakeIndex(
        vector=[("a", 0.9), ("b", 0.8), ("c", 0.7)],
        keyword=[("b", 0.5), ("d", 0.4)],
    )
    config = PRESETS["hybrid_rrf"]
    assert config.fusion.method is FusionMethod.RRF
    hits = await run(SearchRequest("q", SearchMode.HYBRID, limit=3), index, config=config)
    assert [(h[0], h[2], h[3]) for h in hits] == [("b", 2, 1), ("a", 1, None), ("d", None, 2)]
    assert hits[0][1] > hits[1][1] > hits[2][1]
    assert all(0 < h[1] <= 1 for h in hits)


async def test_hybrid_asks_each_index_for_deeper_candidates_than_the_limit() -> None:
    index = FakeIndex()
    await run(SearchRequest("q", SearchMode.HYBRID, limit=10), index)
    assert sorted(a[3] for a in index.asked) == [50, 50]
    await run(SearchRequest("q", SearchMode.HYBRID, limit=40), index)
    assert sorted(a[3] for a in index.asked[2:]) == [120, 120]


async def test_hybrid_weights_come_from_the_config() -> None:
    index = FakeIndex(vector=[("v", 0.9)], keyword=[("k", 0.9)])
    vector_only = SearchConfig(SearchMode.HYBRID, FusionWeights(vector=1.0, keyword=0.0))
    assert [h[0] for h in await run(SearchRequest("q"), index, config=vector_only)] == ["v"]
    keyword_heavy = SearchConfig(SearchMode.HYBRID, FusionWeights(vector=1.0, keyword=2.0))
    assert [h[0] for h in await run(SearchRequest("q"), index, config=keyword_heavy)] == [
        "k",
        "v",
    ]


async def test_hybrid_runs_the_keyword_search_while_embedding() -> None:
    index = FakeIndex(vector=[("a", 0.9)], keyword=[("a", 0.3)], keyword_delay=0.3)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await run(SearchRequest("q"), index, FakeEmbedder(delay=0.3))
    assert loop.time() - started < 0.5  # one after the other would take 0.6 s


async def test_an_embedding_failure_surfaces_as_itself_and_stops_the_keyword_search() -> None:
    index = FakeIndex(keyword=[("k", 0.5)], keyword_delay=0.5)
    with pytest.raises(EmbeddingError):
        await run(SearchRequest("q"), index, FakeEmbedder(fail=True))
    await asyncio.sleep(0.6)
    assert not index.keyword_finished


@pytest.mark.parametrize(
    ("mode", "expected"),
    [(SearchMode.VECTOR, ["a", "b"]), (SearchMode.KEYWORD, ["k"]), (SearchMode.HYBRID, ["a"])],
)
async def test_min_score_applies_to_the_modes_own_score(
    mode: SearchMode, expected: list[str]
) -> None:
    index = FakeIndex(
        vector=[("a", 0.82), ("b", 0.61), ("c", 0.2)], keyword=[("k", 0.3), ("a", 0.1)]
    )
    threshold = {SearchMode.VECTOR: 0.6, SearchMode.KEYWORD: 0.25, SearchMode.HYBRID: 0.4}[mode]
    # HYBRID: a = (0.82 + 0.1) / 2 = 0.46 passes, b = 0.305 does not.
    hits = await run(SearchRequest("q", mode, min_score=threshold), index)
    assert [h[0] for h in hits] == expected


def test_candidate_depth_grows_with_the_limit_within_bounds() -> None:
    depth = CandidateDepth(multiplier=3, minimum=50, maximum=1000)
    assert [depth.for_limit(n) for n in (1, 10, 17, 100, 400, 1000)] == [
        50, 50, 51, 300, 1000, 1000,
    ]  # fmt: skip
    assert CandidateDepth(multiplier=1, minimum=1, maximum=5).for_limit(8) == 8


def test_presets_name_each_mode_and_fusion_defaults_to_equal_weight_score_fusion() -> None:
    assert {p.mode for p in PRESETS.values()} == set(SearchMode)
    for mode in SearchMode:
        assert config_for(mode).mode is mode
    assert config_for(SearchMode.HYBRID).fusion == FusionWeights(60, 1.0, 1.0, FusionMethod.SCORES)
    tuned = config_for(SearchMode.HYBRID, FusionWeights(20, 1.0, 0.5))
    assert tuned.fusion.k == 20 and tuned.depth == config_for(SearchMode.HYBRID).depth


@pytest.mark.parametrize("weights", [(0, 1.0, 1.0), (60, -1.0, 1.0), (60, 0.0, 0.0)])
def test_impossible_fusion_settings_are_a_configuration_error(
    weights: tuple[int, float, float],
) -> None:
    with pytest.raises(ConfigurationError):
        FusionWeights(*weights)

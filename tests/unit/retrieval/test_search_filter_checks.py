"""The search use case's checks of the filters and ``vectorWeight``: a bad value is an error
naming the argument before anything is embedded or read; good ones reach the index in
canonical form; the weight splits HYBRID's lists."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.retrieval.search import SearchFilters, SearchMode, SearchRequest, search
from tests.fakes.chunk_index import FakeIndex
from tests.fakes.embedder import FakeEmbedder

READER = Scope("acme", "web", "frontend")
DAY = datetime(2026, 3, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (SearchRequest("q", vector_weight=1.01), "vectorWeight"),
        (SearchRequest("q", vector_weight=-0.5), "vectorWeight"),
        (SearchRequest("q", vector_weight=float("nan")), "vectorWeight"),
        (
            SearchRequest("q", filters=SearchFilters(created_after=DAY, created_before=DAY)),
            "createdAfter",
        ),
        (
            SearchRequest(
                "q",
                filters=SearchFilters(observed_after=DAY, observed_before=DAY - timedelta(days=1)),
            ),
            "observedAfter",
        ),
        (SearchRequest("q", filters=SearchFilters(info_types=("a\nb",))), "infoTypes"),
        (SearchRequest("q", filters=SearchFilters(source_kinds=("k" * 201,))), "sourceKinds"),
        (SearchRequest("q", filters=SearchFilters(connection_ids=("",))), "connectionIds"),
        (SearchRequest("q", filters=SearchFilters(entity_keys=("nocolon",))), "entityKeys"),
        (SearchRequest("q", filters=SearchFilters(entity_keys=("k:1",) * 101)), "entityKeys"),
    ],
)
async def test_bad_filters_name_their_argument_and_touch_nothing(
    request_: SearchRequest, field: str
) -> None:
    index, embedder = FakeIndex(), FakeEmbedder()
    with pytest.raises(ValidationError) as raised:
        await search(request_, reader=READER, embedder=embedder, index=index)
    assert raised.value.field == field
    assert index.asked == [] and embedder.calls == []


async def test_the_index_gets_canonical_keys_and_times_in_utc() -> None:
    index = FakeIndex()
    plus_two = timezone(timedelta(hours=2))
    filters = SearchFilters(
        entity_keys=("Service:Billing", "service:billing"),
        created_after=datetime(2026, 3, 1, 2, 0, tzinfo=plus_two),
        observed_before=datetime(2026, 3, 2),  # no zone: UTC
    )
    request = SearchRequest("q", SearchMode.KEYWORD, filters=filters)
    await search(request, reader=READER, embedder=FakeEmbedder(), index=index)
    [(_, _, asked, _)] = index.asked
    assert asked.entity_keys == ("service:billing",)
    assert asked.created_after == DAY
    assert asked.observed_before == DAY + timedelta(days=1)


@pytest.mark.parametrize(("weight", "first"), [(1.0, "v"), (0.0, "k"), (None, "v")])
async def test_the_vector_weight_splits_hybrids_lists(weight: float | None, first: str) -> None:
    # "v" leads the vector list, "k" the keyword list; at the configured equal weights the
    # better single score ("v", 0.9) leads.
    index = FakeIndex(vector=[("v", 0.9)], keyword=[("k", 0.8)])
    request = SearchRequest("q", vector_weight=weight)
    hits = await search(request, reader=READER, embedder=FakeEmbedder(), index=index)
    assert hits[0].chunk.id == first
    if weight == 0.0:
        assert [h.chunk.id for h in hits if h.score > 0] == ["k"]

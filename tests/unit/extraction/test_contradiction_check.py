"""The contradiction check over fakes: what is listed to the model, which ids end edges and
which are ignored, malformed answers, the cache, and extract_source writing the endings."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime

from kenning.domain.access.scope import Scope
from kenning.domain.extraction.contradiction_prompt import (
    CONTRADICT_SYSTEM,
    MAX_LISTED,
    ContradictionAnswer,
    chosen,
    listing,
    listing_text,
)
from kenning.domain.extraction.contradictions import Checker, Contradictions, contradictions
from kenning.domain.extraction.extract_source import ExtractionDeps, extract_source
from kenning.domain.extraction.ports import CurrentEdge
from kenning.domain.ingestion.request import EdgeEnding, SourceRecord
from kenning.domain.ingestion.validity import EndReason
from kenning.domain.models.ports import ChatRequest, ModelPriority
from tests.fakes.extraction import (
    FakeCurrentEdges,
    FakeExtractionCache,
    FakeSourceChunks,
    stored_chunk,
)
from tests.fakes.knowledge_store import FakeAliases, FakeStore
from tests.fakes.model_client import FakeModelClient

SCOPE = Scope("acme")
JUNE = datetime(2025, 6, 1, tzinfo=UTC)
MYSQL = CurrentEdge("service:billing", "uses", "database:mysql")
OWNER = CurrentEdge("person:ada", "owns", "service:billing")
CHUNK = stored_chunk("c1", "Billing runs on Postgres now.", observed_at=JUNE)
ENDING = EdgeEnding(
    "service:billing", "uses", "database:mysql", EndReason.CONTRADICTED, "llm:m1", JUNE
)


@dataclasses.dataclass
class Fakes:
    """A checker over fakes, and the fakes themselves."""

    checker: Checker
    client: FakeModelClient
    edges: FakeCurrentEdges
    cache: FakeExtractionCache


def fakes(answers: list[str], edges: list[CurrentEdge]) -> Fakes:
    client = FakeModelClient(list(answers))
    current, cache = FakeCurrentEdges({SCOPE: edges}), FakeExtractionCache()
    return Fakes(Checker(client, current, cache, "m1", max_retries=1), client, current, cache)


def test_the_listing_numbers_edges_and_only_listed_ids_count() -> None:
    listed = listing([MYSQL, OWNER])
    assert listing_text(listed) == (
        "E1: service:billing -uses-> database:mysql\nE2: person:ada -owns-> service:billing"
    )
    answer = ContradictionAnswer(contradicts=[" e1 ", "E1", "E3", "mysql"])
    assert chosen(answer, listed) == ([MYSQL], ["E3", "mysql"])


async def test_a_named_edge_ends_at_the_chunks_time_by_the_model() -> None:
    f = fakes(['{"contradicts": ["E1"]}'], [MYSQL, OWNER])
    found = await contradictions(f.checker, SCOPE, "doc:new", [(CHUNK, {"service:billing"})], set())
    assert found.endings == (ENDING,)
    assert (found.model_calls, found.warnings) == (1, ())
    [request] = f.client.requests
    assert request.messages[0].content == CONTRADICT_SYSTEM
    assert request.priority is ModelPriority.BACKGROUND
    assert "E2: person:ada -owns-> service:billing" in request.messages[1].content
    assert f.edges.asked[0] == (SCOPE, frozenset({"service:billing"}), JUNE, "doc:new", MAX_LISTED)


async def test_nothing_to_list_costs_no_call_and_stated_edges_are_never_listed() -> None:
    f = fakes([], [MYSQL])
    none = await contradictions(f.checker, SCOPE, "doc:new", [(CHUNK, set())], set())
    stated = {("service:billing", "uses", "database:mysql")}
    own = await contradictions(f.checker, SCOPE, "doc:new", [(CHUNK, {"service:billing"})], stated)
    assert none.endings == own.endings == () and f.client.calls == 0


async def test_unlisted_ids_and_a_malformed_answer_end_nothing_with_a_warning() -> None:
    f = fakes(['{"contradicts": ["E9", "E0"]}'], [MYSQL])
    found = await contradictions(f.checker, SCOPE, "doc:new", [(CHUNK, {"service:billing"})], set())
    assert found.endings == ()
    assert [(w.source, w.line, w.excerpt) for w in found.warnings] == [
        ("contradicts", 1, "E9"),
        ("contradicts", 1, "E0"),
    ]

    broken = fakes(["not json", '{"contradicts": "E1"}'], [MYSQL])
    chunks = [(CHUNK, {"service:billing"})]
    found = await contradictions(broken.checker, SCOPE, "doc:new", chunks, set())
    assert found.endings == () and broken.client.calls == 2  # once, then its one retry
    assert "stayed invalid after 2 attempts" in found.warnings[0].reason
    assert broken.cache.puts == 0


async def test_the_same_text_and_listing_is_answered_by_the_cache() -> None:
    f = fakes(['{"contradicts": []}'], [MYSQL])
    chunks = [(CHUNK, {"service:billing"})]
    await contradictions(f.checker, SCOPE, "doc:new", chunks, set())
    again = await contradictions(f.checker, SCOPE, "doc:again", chunks, set())
    assert (again.model_calls, again.cached, f.client.calls) == (0, 1, 1)
    f.edges.edges[SCOPE].insert(0, OWNER)  # a new edge: another listing, asked again
    changed = await contradictions(f.checker, SCOPE, "doc:new", chunks, set())
    assert (changed.model_calls, f.client.calls) == (1, 2)


def extraction(request: ChatRequest) -> str:
    if request.messages[0].content == CONTRADICT_SYSTEM:
        return '{"contradicts": ["E1", "E2"]}'
    return json.dumps(
        {
            "entities": [
                {"type": "service", "name": "Billing"},
                {"type": "database", "name": "Postgres"},
            ],
            "relations": [
                {"source": "Billing", "type": "uses", "target": "Postgres", "confidence": 0.9}
            ],
        }
    )


async def test_extract_source_writes_the_endings_at_the_writers_scope() -> None:
    store = FakeStore()
    store.sources["doc:new"] = SourceRecord(SCOPE, "doc:new", "note", "h", None, None, ("c1",), ())
    edges = FakeCurrentEdges({SCOPE: [MYSQL]})
    deps = ExtractionDeps(
        client=FakeModelClient(replier=extraction),
        chunks=FakeSourceChunks({"doc:new": [CHUNK]}),
        cache=FakeExtractionCache(),
        store=store,
        aliases=FakeAliases(),
        model="m1",
        edges=edges,
    )
    report = await extract_source(SCOPE, "doc:new", deps)
    assert store.endings == [ENDING]
    assert report.graph is not None and report.graph.endings == (ENDING,)
    assert report.contradictions.model_calls == 1
    assert [w.excerpt for w in report.contradictions.warnings] == ["E2"]
    # Without the port there is no check at all.
    plain = await extract_source(SCOPE, "doc:new", dataclasses.replace(deps, edges=None))
    assert plain.contradictions == Contradictions() and store.endings == [ENDING]

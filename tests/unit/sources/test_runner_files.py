"""The repository runner's files, a few at a time: each its own source and write, in request
order, at most ``width`` writes in flight, a refused file reported while the others go on."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.graph_items import GraphPiece, GraphRequest
from kenning.domain.sources.code.runner_files import ingest_files
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeStore
from tests.support.ingest_deps import deps

T = TypeVar("T")
SCOPE = Scope("c1", "p1", "")
CREDENTIAL = "deploy with AKIAIOSFODNN7EXAMPLF please"


class CountingStore(FakeStore):
    """A store whose writes yield to the loop, counting how many are in flight at once."""

    def __init__(self) -> None:
        super().__init__()
        self.in_flight = self.peak = 0

    async def write(self, work: Callable[[Any], Awaitable[T]]) -> T:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await asyncio.sleep(0.01)
            return await super().write(work)
        finally:
            self.in_flight -= 1


def _request(index: int, text: str = "") -> GraphRequest:
    content = text or f"def f{index}(): return {index}"
    return GraphRequest(f"code:r@main:f{index}.py", SCOPE, pieces=(GraphPiece("p", content),))


async def test_files_stored_in_order_with_bounded_concurrency() -> None:
    store, checkpoints = CountingStore(), []
    requests = [_request(i) for i in range(7)]

    async def checkpoint() -> None:
        checkpoints.append(1)

    applied = await ingest_files(requests, SCOPE, deps(store, FakeEmbedder()), checkpoint, width=3)
    one_by_one = await ingest_files(requests, SCOPE, deps(FakeStore(), FakeEmbedder()),
                                    checkpoint, width=1)  # fmt: skip
    hashes = [o.outcome.content_hash for o in applied.outcomes]
    assert hashes == [o.outcome.content_hash for o in one_by_one.outcomes]
    assert len(set(hashes)) == 7
    assert sorted(store.sources) == sorted(r.source_urn for r in requests)
    assert len(checkpoints) == 14  # 7 per run
    assert store.peak == 3


async def test_a_refused_file_is_reported_and_the_others_stored() -> None:
    store = CountingStore()
    requests = [_request(0), _request(1, CREDENTIAL), _request(2)]

    async def checkpoint() -> None:
        return None

    applied = await ingest_files(requests, SCOPE, deps(store, FakeEmbedder()), checkpoint, width=2)
    assert [r.source_urn for r in applied.refused] == [requests[1].source_urn]
    assert sorted(store.sources) == [requests[0].source_urn, requests[2].source_urn]
    assert not any("AKIAIOSFODNN7EXAMPLF" in c.content for c in store.chunks)


async def test_a_failing_checkpoint_stops_the_run() -> None:
    store, calls = CountingStore(), []

    async def checkpoint() -> None:
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("lease lost")

    with pytest.raises(ExceptionGroup) as raised:
        await ingest_files([_request(i) for i in range(20)], SCOPE,
                           deps(store, FakeEmbedder()), checkpoint, width=2)  # fmt: skip
    assert raised.group_contains(RuntimeError)
    assert len(store.sources) < 20


async def test_width_must_be_positive() -> None:
    async def checkpoint() -> None:
        return None

    with pytest.raises(ValueError, match="width"):
        await ingest_files([], SCOPE, deps(FakeStore(), FakeEmbedder()), checkpoint, width=0)

"""The local embedder's lanes, with stub encoders: who runs first, never how fast."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
from numpy.typing import NDArray

from kenning.storage.embedders.local import BULK_SUB_BATCH, LocalEmbedder


class StubEncoder:
    """Records each batch's first text; with ``hold``, each call waits for ``release``."""

    def __init__(self, order: list[str], *, hold: bool = False) -> None:
        self.order = order
        self.hold = hold
        self.running = threading.Event()
        self.release = threading.Event()
        self.finished = threading.Event()
        self.sizes: list[int] = []

    def __call__(self, texts: list[str]) -> NDArray[np.float32]:
        self.running.set()
        if self.hold:
            assert self.release.wait(timeout=10), "the test never released the encoder"
        self.order.append(texts[0])
        self.sizes.append(len(texts))
        self.finished.set()
        return np.full((len(texts), 384), 384**-0.5, dtype=np.float32)


def lanes(bulk: StubEncoder, interactive: StubEncoder, batch_size: int = 1) -> LocalEmbedder:
    return LocalEmbedder(
        batch_size=batch_size, loader=lambda: bulk, interactive_loader=lambda: interactive
    )


async def test_a_query_finishes_while_a_bulk_batch_still_holds_the_model() -> None:
    order: list[str] = []
    bulk, interactive = StubEncoder(order, hold=True), StubEncoder(order)
    embedder = lanes(bulk, interactive)
    bulk_a = asyncio.create_task(embedder.embed(["a1", "a2"]))
    await asyncio.to_thread(bulk.running.wait, 10)
    bulk_b = asyncio.create_task(embedder.embed(["b1"], priority=3))

    [vector] = await asyncio.wait_for(embedder.embed(["query"], priority=0), timeout=10)

    # Queued behind bulk, the query could not have finished before a1 was released.
    assert order == ["query"] and len(vector) == 384
    bulk.release.set()
    await asyncio.gather(bulk_a, bulk_b)
    assert order == ["query", "a1", "b1", "a2"]


async def test_queued_bulk_sub_batches_wait_while_a_query_runs() -> None:
    order: list[str] = []
    bulk, interactive = StubEncoder(order, hold=True), StubEncoder(order, hold=True)
    embedder = lanes(bulk, interactive)
    bulk_a = asyncio.create_task(embedder.embed(["a1", "a2", "a3"]))
    await asyncio.to_thread(bulk.running.wait, 10)
    query = asyncio.create_task(embedder.embed(["query"], priority=1))
    await asyncio.to_thread(interactive.running.wait, 10)
    bulk.release.set()  # a1 ends; a2 is next in line but must yield to the query
    await asyncio.to_thread(bulk.finished.wait, 10)
    await asyncio.sleep(0.05)

    assert order == ["a1"]
    interactive.release.set()
    await asyncio.gather(bulk_a, query)
    assert order == ["a1", "query", "a2", "a3"]


async def test_bulk_sub_batches_are_served_by_priority_then_arrival() -> None:
    order: list[str] = []
    bulk = StubEncoder(order, hold=True)
    embedder = lanes(bulk, StubEncoder(order))
    bulk_a = asyncio.create_task(embedder.embed(["a1", "a2"]))
    await asyncio.to_thread(bulk.running.wait, 10)
    bulk_b = asyncio.create_task(embedder.embed(["b1", "b2"], priority=5))
    bulk_c = asyncio.create_task(embedder.embed(["c1"], priority=3))
    # Too many texts for the interactive lane: it queues as bulk, first by its priority.
    large = [f"u{i}" for i in range(9)]
    urgent = asyncio.create_task(embedder.embed(large, priority=0))
    await asyncio.sleep(0.05)
    bulk.release.set()
    await asyncio.gather(bulk_a, bulk_b, bulk_c, urgent)

    assert order == ["a1", *large, "c1", "a2", "b1", "b2"]


async def test_bulk_is_encoded_in_sub_batches_of_at_most_eight() -> None:
    order: list[str] = []
    bulk, interactive = StubEncoder(order), StubEncoder(order)
    embedder = lanes(bulk, interactive, batch_size=32)

    vectors = await embedder.embed([f"t{i}" for i in range(20)])
    await embedder.embed(["q1", "q2"], priority=0)

    assert len(vectors) == 20
    assert bulk.sizes == [BULK_SUB_BATCH, BULK_SUB_BATCH, 4]
    assert interactive.sizes == [2]


async def test_one_stub_loader_serves_both_lanes() -> None:
    order: list[str] = []
    encode = StubEncoder(order)
    embedder = LocalEmbedder(loader=lambda: encode)

    await embedder.embed(["bulk"])
    await embedder.embed(["query"], priority=0)

    assert order == ["bulk", "query"]


async def test_a_cancelled_waiter_does_not_hold_up_the_others() -> None:
    order: list[str] = []
    bulk = StubEncoder(order, hold=True)
    embedder = lanes(bulk, StubEncoder(order))
    holder = asyncio.create_task(embedder.embed(["a1"]))
    await asyncio.to_thread(bulk.running.wait, 10)
    abandoned = asyncio.create_task(embedder.embed(["b1"], priority=4))
    await asyncio.sleep(0.05)
    abandoned.cancel()
    waiting = asyncio.create_task(embedder.embed(["c1"]))
    await asyncio.sleep(0.05)
    bulk.release.set()

    await asyncio.wait_for(asyncio.gather(holder, waiting), timeout=10)
    assert abandoned.cancelled()
    assert order == ["a1", "c1"]


async def test_a_cancelled_query_lets_bulk_go_on() -> None:
    order: list[str] = []
    bulk, interactive = StubEncoder(order, hold=True), StubEncoder(order, hold=True)
    embedder = lanes(bulk, interactive)
    query = asyncio.create_task(embedder.embed(["query"], priority=0))
    await asyncio.to_thread(interactive.running.wait, 10)
    bulk.release.set()
    work = asyncio.create_task(embedder.embed(["a1"]))
    await asyncio.sleep(0.05)
    query.cancel()

    await asyncio.wait_for(work, timeout=10)
    interactive.release.set()
    assert order[0] == "a1"

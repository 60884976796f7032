"""Bulk calls running at once share sub-batches; one call's failure stays its own."""

from __future__ import annotations

import asyncio
import threading

import numpy as np
import pytest
from numpy.typing import NDArray

from kenning.domain.embedding import EmbeddingError
from kenning.storage.embedders.local import BULK_SUB_BATCH, LocalEmbedder


class Recorder:
    """Records each batch; the vector's first value is the text's number; ``hold`` waits."""

    def __init__(self, *, hold: bool = False, poison: str | None = None) -> None:
        self.batches: list[list[str]] = []
        self.hold, self.poison = hold, poison
        self.running, self.release = threading.Event(), threading.Event()

    def __call__(self, texts: list[str]) -> NDArray[np.float32]:
        self.running.set()
        if self.hold:
            assert self.release.wait(timeout=10), "the test never released the encoder"
        if self.poison in texts:
            raise RuntimeError("the model choked")
        self.batches.append(list(texts))
        out = np.zeros((len(texts), 384), dtype=np.float32)
        out[:, 0] = [float(t.split("-")[1]) for t in texts]
        return out


def embedder(bulk: Recorder, interactive: Recorder | None = None) -> LocalEmbedder:
    return LocalEmbedder(loader=lambda: bulk, interactive_loader=lambda: interactive or bulk)


async def test_concurrent_ingests_share_sub_batches_and_get_their_own_vectors() -> None:
    bulk = Recorder(hold=True)
    local = embedder(bulk)
    first = asyncio.create_task(local.embed(["d0-0", "d0-1"], priority=1))
    await asyncio.to_thread(bulk.running.wait, 10)
    # Seven more two-chunk ingests arrive while the first one's forward pass runs.
    docs = [[f"d{d}-{2 * d}", f"d{d}-{2 * d + 1}"] for d in range(1, 8)]
    rest = [asyncio.create_task(local.embed(texts, priority=1)) for texts in docs]
    await asyncio.sleep(0.05)
    bulk.release.set()
    results = await asyncio.wait_for(asyncio.gather(first, *rest), timeout=10)

    assert [len(b) for b in bulk.batches] == [2, BULK_SUB_BATCH, 14 - BULK_SUB_BATCH]
    for number, vectors in enumerate(results):
        assert [v[0] for v in vectors] == [2 * number, 2 * number + 1]


async def test_a_query_still_runs_alone_on_the_interactive_lane() -> None:
    bulk, interactive = Recorder(), Recorder()
    local = embedder(bulk, interactive)

    await local.embed(["q-1"], priority=1)
    await local.embed(["c-1", "c-2"], priority=1)

    assert interactive.batches == [["q-1"]]
    assert bulk.batches == [["c-1", "c-2"]]


async def test_a_failing_text_fails_only_its_own_call() -> None:
    bulk = Recorder(hold=True, poison="bad-9")
    local = embedder(bulk)
    holder = asyncio.create_task(local.embed(["a-0", "a-1"]))
    await asyncio.to_thread(bulk.running.wait, 10)
    good = asyncio.create_task(local.embed(["g-1", "g-2"]))
    bad = asyncio.create_task(local.embed(["bad-9", "bad-8"]))
    await asyncio.sleep(0.05)
    bulk.release.set()

    assert [v[0] for v in await asyncio.wait_for(good, timeout=10)] == [1, 2]
    with pytest.raises(EmbeddingError, match="the model choked"):
        await asyncio.wait_for(bad, timeout=10)
    assert len(await holder) == 2


async def test_a_cancelled_call_leaves_the_others_their_vectors() -> None:
    bulk = Recorder(hold=True)
    local = embedder(bulk)
    holder = asyncio.create_task(local.embed(["a-0"]))
    await asyncio.to_thread(bulk.running.wait, 10)
    gone = asyncio.create_task(local.embed([f"x-{i}" for i in range(20)]))
    kept = asyncio.create_task(local.embed(["k-5", "k-6"]))
    await asyncio.sleep(0.05)
    gone.cancel()
    bulk.release.set()

    assert [v[0] for v in await asyncio.wait_for(kept, timeout=10)] == [5, 6]
    await holder
    assert all(not t.startswith("x") for batch in bulk.batches for t in batch)

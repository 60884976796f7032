"""What the state of each part means for the server, and the embedder watched for it."""

from __future__ import annotations

import asyncpg
import pytest
import redis.asyncio as aioredis

from kenning.domain.embedding import EmbeddingError
from kenning.domain.health import PartState, overall
from kenning.storage.db.health import unavailable_part
from kenning.storage.embedders import observed as observed_module
from kenning.storage.embedders.observed import ObservedEmbedder
from tests.fakes.embedder import FakeEmbedder


def parts(*down: str) -> list[PartState]:
    names = ("postgres", "age", "pgvector", "redis", "embedder", "workers")
    return [PartState(name, name not in down) for name in names]


@pytest.mark.parametrize(
    ("down", "state"),
    [
        ((), "ok"),
        (("redis",), "degraded"),
        (("embedder",), "degraded"),
        (("redis", "embedder"), "degraded"),
        (("postgres", "age", "pgvector"), "down"),
        (("workers",), "down"),
    ],
)
def test_what_a_part_down_means(down: tuple[str, ...], state: str) -> None:
    assert overall(parts(*down)) == state


async def test_the_embedder_is_failing_from_a_failed_call_until_one_works() -> None:
    observed: list[tuple[int, int, bool]] = []
    inner = FakeEmbedder()
    embedder = ObservedEmbedder(inner, lambda p, n, s, ok: observed.append((p, n, ok)))
    assert embedder.state() == (True, "ok")
    await embedder.embed(["a", "b"], priority=1)
    inner.fail = True
    with pytest.raises(EmbeddingError):
        await embedder.embed(["c"], priority=3)
    # The kind of failure, never the backend's message (it may hold its address).
    assert embedder.state() == (False, "failing: operational embedding error")
    inner.fail = False
    await embedder.embed(["d"], priority=0)
    assert embedder.state() == (True, "ok")
    assert observed == [(1, 2, True), (3, 1, False), (0, 1, True)]


async def test_a_failing_embedder_is_tried_again_when_readiness_asks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    inner = FakeEmbedder()
    embedder = ObservedEmbedder(inner)
    inner.fail = True
    with pytest.raises(EmbeddingError):
        await embedder.embed(["x"])
    assert (await embedder.check())[0] is False  # tried again: still failing
    inner.fail = False
    assert (await embedder.check())[0] is False  # not again within RECHECK_SECONDS
    monkeypatch.setattr(observed_module, "RECHECK_SECONDS", 0.0)
    assert await embedder.check() == (True, "ok")  # the backend came back


@pytest.mark.parametrize(
    ("error", "part"),
    [
        (ConnectionRefusedError(111, "Connection refused"), "postgres"),
        (asyncpg.CannotConnectNowError("the database system is starting up"), "postgres"),
        (aioredis.ConnectionError("Error 111 connecting to 127.0.0.1:6380"), "redis"),
        (FileNotFoundError(2, "No such file", "model.onnx"), None),
        (PermissionError(13, "Permission denied"), None),
        (TimeoutError(), None),
        (RuntimeError("a bug"), None),
    ],
)
def test_which_errors_name_a_part_that_is_down(error: BaseException, part: str | None) -> None:
    assert unavailable_part(error) == part

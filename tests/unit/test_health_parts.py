"""What the state of each part means for the server, and the embedder watched for it."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from kenning.domain.embedding import EmbeddingError, EmbeddingErrorKind
from kenning.domain.health import PartState, overall
from kenning.storage.embedders.observed import ObservedEmbedder


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


class FlakyEmbedder:
    model = "flaky"
    dimension = 2

    def __init__(self) -> None:
        self.fail = False

    async def embed(self, texts: Sequence[str], *, priority: int = 3) -> list[list[float]]:
        if self.fail:
            raise EmbeddingError("backend refused", kind=EmbeddingErrorKind.OPERATIONAL)
        return [[1.0, 0.0] for _ in texts]

    async def aclose(self) -> None:
        return None


async def test_the_embedder_is_failing_from_a_failed_call_until_one_works() -> None:
    observed: list[tuple[int, int, bool]] = []
    inner = FlakyEmbedder()
    embedder = ObservedEmbedder(inner, lambda p, n, s, ok: observed.append((p, n, ok)))
    assert embedder.state() == (True, "ok")
    await embedder.embed(["a", "b"], priority=1)
    inner.fail = True
    with pytest.raises(EmbeddingError):
        await embedder.embed(["c"], priority=3)
    up, detail = embedder.state()
    assert not up and "backend refused" in detail
    inner.fail = False
    await embedder.embed(["d"], priority=0)
    assert embedder.state() == (True, "ok")
    assert observed == [(1, 2, True), (3, 1, False), (0, 1, True)]

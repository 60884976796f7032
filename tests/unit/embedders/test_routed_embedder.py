"""The ollama embedder through the in-process router: priorities, batches, failures."""

from __future__ import annotations

import math
from typing import Any

import httpx
import pytest

from kenning.domain.embedding import EmbeddingError, EmbeddingErrorKind, model_priority
from kenning.router import BackendFailure, NoBackendAvailable, RouterClient, UpstreamError
from kenning.storage.embedders.ollama import OllamaEmbedder
from kenning.storage.embedders.routed import RoutedEmbedder


def unit(index: int, dims: int = 3) -> list[float]:
    return [1.0 if i == index % dims else 0.0 for i in range(dims)]


class ScriptedClient(RouterClient):
    """Answers /api/embed with unit vectors, or raises what the test put in ``failure``."""

    def __init__(self, dims: int = 3) -> None:
        self.dims = dims
        self.calls: list[tuple[str, dict[str, Any], int]] = []
        self.failure: Exception | None = None
        self.answer: dict[str, Any] | None = None

    async def request(self, path: str, payload: dict[str, Any], priority: int) -> dict[str, Any]:
        self.calls.append((path, payload, int(priority)))
        if self.failure is not None:
            raise self.failure
        if self.answer is not None:
            return self.answer
        start = sum(len(c[1]["input"]) for c in self.calls[:-1])
        return {"embeddings": [unit(start + i, self.dims) for i in range(len(payload["input"]))]}


@pytest.mark.parametrize(("kenning", "router"), [(0, 0), (1, 1), (2, 2), (3, 3), (7, 3), (9, 3)])
def test_bulk_priorities_become_background(kenning: int, router: int) -> None:
    assert model_priority(kenning) == router


async def test_batches_in_order_with_the_router_priority() -> None:
    client = ScriptedClient()
    embedder = RoutedEmbedder(client, model="nomic-embed-text", dimension=3, batch_size=2)
    vectors = await embedder.embed(["a", "b", "c"], priority=7)
    assert vectors == [unit(0), unit(1), unit(2)]
    assert client.calls == [
        ("/api/embed", {"model": "nomic-embed-text", "input": ["a", "b"]}, 3),
        ("/api/embed", {"model": "nomic-embed-text", "input": ["c"]}, 3),
    ]
    await embedder.embed(["q"], priority=0)
    assert client.calls[-1][2] == 0
    assert await embedder.embed([]) == [] and len(client.calls) == 3


@pytest.mark.parametrize(
    ("failure", "kind"),
    [
        (UpstreamError(503, "server busy, please try again"), EmbeddingErrorKind.OPERATIONAL),
        (UpstreamError(404, 'model "nope" not found'), EmbeddingErrorKind.PERMANENT),
        (NoBackendAvailable("no healthy backend"), EmbeddingErrorKind.OPERATIONAL),
        (BackendFailure("gpu0", "ConnectError"), EmbeddingErrorKind.OPERATIONAL),
        (ValueError("Expecting value"), EmbeddingErrorKind.PERMANENT),
    ],
)
async def test_router_failures_say_whether_to_retry(
    failure: Exception, kind: EmbeddingErrorKind
) -> None:
    client = ScriptedClient()
    client.failure = failure
    embedder = RoutedEmbedder(client, model="m", dimension=3)
    with pytest.raises(EmbeddingError) as caught:
        await embedder.embed(["a"])
    assert caught.value.kind is kind


async def test_answers_are_checked_like_ollamas() -> None:
    client = ScriptedClient(dims=4)
    embedder = RoutedEmbedder(client, model="m", dimension=3)
    with pytest.raises(EmbeddingError, match="dimension 4, expected 3") as caught:
        await embedder.embed(["a"])
    assert caught.value.kind is EmbeddingErrorKind.PERMANENT
    client.answer = {"embeddings": [[math.nan, 0.0, 0.0]]}
    with pytest.raises(EmbeddingError, match="non-finite"):
        await RoutedEmbedder(client, model="m", dimension=3).embed(["a"])


async def test_the_http_embedder_sends_bulk_priorities_as_background() -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["x-ollama-priority"])
        return httpx.Response(200, json={"embeddings": [unit(0)]})

    embedder = OllamaEmbedder(
        "http://router", model="m", dimension=3, transport=httpx.MockTransport(answer)
    )
    for priority in (9, 3, 1):
        await embedder.embed(["a"], priority=priority)
    await embedder.aclose()
    assert seen == ["3", "3", "1"]

"""The Ollama adapter against an emulated ``/api/embed`` (httpx.MockTransport)."""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest

from kenning.domain.embedding import EmbeddingError, EmbeddingErrorKind
from kenning.settings import EmbedderKind, Settings
from kenning.storage.embedders import OllamaEmbedder, create_embedder
from kenning.storage.embedders.constant import hash_vector

DIM = 8
Handler = Callable[[httpx.Request], httpx.Response]


def ollama_like(dimension: int = DIM) -> tuple[Handler, list[httpx.Request]]:
    """A handler answering like Ollama's /api/embed, and the requests it saw."""
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.method != "POST" or request.url.path != "/api/embed":
            return httpx.Response(404, text="404 page not found")
        body = json.loads(request.content)
        vectors = [hash_vector(text, dimension) for text in body["input"]]
        return httpx.Response(200, json={"model": body["model"], "embeddings": vectors})

    return handle, seen


def embedder_for(handler: Handler, *, batch_size: int = 32) -> OllamaEmbedder:
    return OllamaEmbedder(
        "http://ollama.test:11434/",
        model="all-minilm",
        dimension=DIM,
        batch_size=batch_size,
        transport=httpx.MockTransport(handler),
    )


async def embed_error(handler: Handler) -> EmbeddingError:
    embedder = embedder_for(handler)
    with pytest.raises(EmbeddingError) as caught:
        await embedder.embed(["some text"])
    await embedder.aclose()
    return caught.value


async def test_vectors_come_back_in_order_with_the_priority_header() -> None:
    handler, seen = ollama_like()
    embedder = embedder_for(handler)

    vectors = await embedder.embed(["first", "second"], priority=0)

    assert vectors == [hash_vector("first", DIM), hash_vector("second", DIM)]
    [request] = seen
    assert str(request.url) == "http://ollama.test:11434/api/embed"
    assert request.headers["X-Ollama-Priority"] == "0"
    assert json.loads(request.content) == {"model": "all-minilm", "input": ["first", "second"]}
    await embedder.aclose()


async def test_background_priority_is_the_default() -> None:
    handler, seen = ollama_like()
    embedder = embedder_for(handler)

    await embedder.embed(["bulk"])

    assert seen[0].headers["X-Ollama-Priority"] == "3"
    await embedder.aclose()


async def test_texts_are_sent_in_batches_and_reassembled_in_order() -> None:
    handler, seen = ollama_like()
    embedder = embedder_for(handler, batch_size=2)
    texts = [f"text {i}" for i in range(5)]

    vectors = await embedder.embed(texts, priority=1)

    assert [json.loads(r.content)["input"] for r in seen] == [texts[0:2], texts[2:4], texts[4:]]
    assert {r.headers["X-Ollama-Priority"] for r in seen} == {"1"}
    assert vectors == [hash_vector(text, DIM) for text in texts]
    await embedder.aclose()


async def test_no_texts_means_no_request() -> None:
    handler, seen = ollama_like()
    embedder = embedder_for(handler)

    assert await embedder.embed([]) == []
    assert seen == []
    await embedder.aclose()


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (503, {"error": "server busy, please try again.  maximum pending requests exceeded"}),
        (429, {"error": "too many requests"}),
        (502, {"error": "bad gateway"}),
        (500, {"error": "server busy, please try again"}),
    ],
)
async def test_busy_or_overloaded_backends_are_operational_errors(
    status: int, body: dict[str, str]
) -> None:
    error = await embed_error(lambda request: httpx.Response(status, json=body))

    assert error.kind is EmbeddingErrorKind.OPERATIONAL
    assert error.transient
    assert str(status) in error.message


async def test_retry_after_is_passed_on() -> None:
    error = await embed_error(
        lambda request: httpx.Response(429, headers={"Retry-After": "2"}, json={"error": "slow"})
    )

    assert error.transient
    assert error.retry_after == 2.0


@pytest.mark.parametrize(
    "failure", [httpx.ReadTimeout, httpx.ConnectTimeout, httpx.ConnectError, httpx.ReadError]
)
async def test_timeouts_and_broken_connections_are_operational_errors(
    failure: type[httpx.TransportError],
) -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        raise failure("no answer", request=request)

    error = await embed_error(handle)

    assert error.kind is EmbeddingErrorKind.OPERATIONAL
    assert failure.__name__ in error.message


async def test_busy_error_after_the_answer_started_is_operational() -> None:
    body = b'{"model":"all-minilm"}\n{"error":"server busy, please try again"}\n'

    error = await embed_error(lambda request: httpx.Response(200, content=body))

    assert error.kind is EmbeddingErrorKind.OPERATIONAL


async def test_unknown_model_is_permanent() -> None:
    error = await embed_error(
        lambda request: httpx.Response(
            404, json={"error": 'model "all-minilm" not found, try pulling it first'}
        )
    )

    assert error.kind is EmbeddingErrorKind.PERMANENT
    assert not error.transient
    assert "not found" in error.message


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"<html>not json</html>", "no 'embeddings' list"),
        (b'{"model": "all-minilm"}', "no 'embeddings' list"),
        (b'{"embeddings": [[0.5, "x", 0, 0, 0, 0, 0, 0]]}', "not lists of numbers"),
        (b'{"embeddings": [{"v": 1}]}', "not vectors"),
        (b'{"embeddings": [[NaN, 0, 0, 0, 0, 0, 0, 0]]}', "non-finite"),
    ],
)
async def test_malformed_answers_are_permanent(content: bytes, expected: str) -> None:
    error = await embed_error(lambda request: httpx.Response(200, content=content))

    assert error.kind is EmbeddingErrorKind.PERMANENT
    assert expected in error.message


async def test_wrong_number_of_vectors_is_permanent() -> None:
    vectors = [hash_vector("a", DIM), hash_vector("b", DIM)]

    error = await embed_error(lambda request: httpx.Response(200, json={"embeddings": vectors}))

    assert error.kind is EmbeddingErrorKind.PERMANENT
    assert "2 embeddings for 1 texts" in error.message


async def test_wrong_dimension_is_permanent_and_names_both() -> None:
    handler, _ = ollama_like(dimension=768)

    error = await embed_error(handler)

    assert error.kind is EmbeddingErrorKind.PERMANENT
    assert "768" in error.message
    assert str(DIM) in error.message


async def test_bad_url_scheme_is_permanent() -> None:
    embedder = OllamaEmbedder("ftp://ollama.test", model="m", dimension=DIM)

    with pytest.raises(EmbeddingError) as caught:
        await embedder.embed(["x"])

    assert caught.value.kind is EmbeddingErrorKind.PERMANENT
    await embedder.aclose()


async def test_an_injected_client_is_left_open_an_owned_one_is_closed() -> None:
    handler, _ = ollama_like()
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        shared = OllamaEmbedder("http://o", model="m", dimension=DIM, client=client)
        await shared.aclose()
        assert not client.is_closed
        assert len(await shared.embed(["still works"])) == 1

    owned = embedder_for(handler)
    await owned.aclose()
    with pytest.raises(RuntimeError, match="closed"):
        await owned.embed(["closed"])


async def test_factory_builds_ollama_from_settings() -> None:
    settings = Settings(
        embedder=EmbedderKind.OLLAMA,
        ollama_url="http://router.test:8000",
        embedding_model="all-minilm",
        embedding_dim=DIM,
    )

    embedder = create_embedder(settings)

    assert isinstance(embedder, OllamaEmbedder)
    assert (embedder.model, embedder.dimension) == ("all-minilm", DIM)
    await embedder.aclose()

"""``OllamaEmbedder``: ``POST {base_url}/api/embed`` in batches, priority in a header.

Talks to a real Ollama or to Kenning's router in front of it. ``/api/embed`` answers
``{"model": ..., "embeddings": [[...], ...]}`` with L2-normalized vectors; the legacy
``/api/embeddings`` does not normalize and is never used here.

Failures become ``EmbeddingError``: OPERATIONAL for what may pass (timeouts, refused or
reset connections, 408/429/502/503/504, "server busy"), PERMANENT for the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from kenning.domain.embedding import EmbeddingError, EmbeddingErrorKind, batched, model_priority
from kenning.domain.models.failures import (
    answer_json,
    error_in,
    is_transient,
    retry_after_seconds,
)
from kenning.domain.priorities import BACKGROUND_PRIORITY

PRIORITY_HEADER = "X-Ollama-Priority"
DEFAULT_BATCH_SIZE = 32
DEFAULT_TIMEOUT = 120.0  # seconds; behind the router a background batch may wait its turn
CONNECT_TIMEOUT = 5.0

_OPERATIONAL = EmbeddingErrorKind.OPERATIONAL
_PERMANENT = EmbeddingErrorKind.PERMANENT


class OllamaEmbedder:
    """Embeds through Ollama's ``/api/embed``; checks count and dimension of every answer.

    Example: ``OllamaEmbedder("http://127.0.0.1:11434", model="all-minilm", dimension=384)``.
    Pass ``client`` (or ``transport``) to reuse a client or to test without a network; an
    injected client is left open by ``aclose()``.
    """

    def __init__(
        self,
        base_url: str,
        *,
        model: str,
        dimension: int,
        batch_size: int = DEFAULT_BATCH_SIZE,
        timeout: float = DEFAULT_TIMEOUT,
        client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if dimension < 1:
            raise ValueError("dimension must be at least 1")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        if client is not None and transport is not None:
            raise ValueError("pass either client or transport, not both")
        self._url = base_url.rstrip("/") + "/api/embed"
        self._model = model
        self._dimension = dimension
        self._batch_size = batch_size
        self._owns_client = client is None
        if client is None:
            client = httpx.AsyncClient(
                timeout=httpx.Timeout(timeout, connect=min(CONNECT_TIMEOUT, timeout)),
                transport=transport,
            )
        self._client = client

    @property
    def model(self) -> str:
        return self._model

    @property
    def dimension(self) -> int:
        return self._dimension

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        """One request per batch of ``batch_size`` texts, in order; raises ``EmbeddingError``."""
        vectors: list[list[float]] = []
        for batch in batched(texts, self._batch_size):
            vectors.extend(await self._embed_batch(batch, priority))
        return vectors

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()

    async def _embed_batch(self, batch: Sequence[str], priority: int) -> list[list[float]]:
        try:
            response = await self._client.post(
                self._url,
                json={"model": self._model, "input": list(batch)},
                headers={PRIORITY_HEADER: str(model_priority(priority))},
            )
        except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            raise EmbeddingError(
                f"ollama at {self._url} unreachable: {type(exc).__name__}: {exc}",
                kind=_OPERATIONAL,
            ) from exc
        except httpx.HTTPError as exc:  # bad URL scheme, local protocol misuse, ...
            raise EmbeddingError(
                f"ollama request to {self._url} failed: {type(exc).__name__}: {exc}",
                kind=_PERMANENT,
            ) from exc
        body = answer_json(response.content)
        if response.status_code != 200 or error_in(body) is not None:
            raise _status_error(response, body)
        return checked_vectors(body, expected=len(batch), dimension=self._dimension)


def error_kind(status: int, message: str) -> EmbeddingErrorKind:
    """OPERATIONAL for answers that may pass (busy, overloaded, timed out), else PERMANENT."""
    # One rule for every model backend answer (see kenning.domain.models.failures).
    return _OPERATIONAL if is_transient(status, message) else _PERMANENT


def _status_error(response: httpx.Response, body: Any) -> EmbeddingError:
    message = error_in(body) or response.text[:200]
    return EmbeddingError(
        f"ollama answered {response.status_code}: {message}",
        kind=error_kind(response.status_code, message),
        retry_after=retry_after_seconds(response.headers.get("retry-after")),
    )


def checked_vectors(body: Any, *, expected: int, dimension: int) -> list[list[float]]:
    """The ``embeddings`` of an /api/embed answer, checked for count, dimension and numbers."""
    embeddings = body.get("embeddings") if isinstance(body, dict) else None
    if not isinstance(embeddings, list):
        raise EmbeddingError(
            "ollama answer has no 'embeddings' list (is this /api/embed of Ollama >= 0.3?)",
            kind=_PERMANENT,
        )
    if len(embeddings) != expected:
        raise EmbeddingError(
            f"ollama returned {len(embeddings)} embeddings for {expected} texts",
            kind=_PERMANENT,
        )
    if not all(isinstance(vector, list) for vector in embeddings):
        raise EmbeddingError("ollama returned embeddings that are not vectors", kind=_PERMANENT)
    wrong = sorted({len(vector) for vector in embeddings} - {dimension})
    if wrong:
        raise EmbeddingError(
            f"ollama model returned vectors of dimension {', '.join(map(str, wrong))},"
            f" expected {dimension}"
            " (KENNING_EMBEDDING_DIM must match the model)",
            kind=_PERMANENT,
        )
    try:
        array = np.asarray(embeddings, dtype=np.float64).reshape(expected, dimension)
    except (TypeError, ValueError) as exc:
        raise EmbeddingError(
            f"ollama returned embeddings that are not lists of numbers: {exc}", kind=_PERMANENT
        ) from exc
    if not np.isfinite(array).all():
        raise EmbeddingError("ollama returned non-finite numbers", kind=_PERMANENT)
    result: list[list[float]] = array.tolist()
    return result

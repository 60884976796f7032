"""``RoutedEmbedder``: Kenning's ``ollama`` embedder when the model router runs in-process.

Same contract as `OllamaEmbedder` (``/api/embed``, batches, checked vectors, the same
OPERATIONAL/PERMANENT split), but each batch goes to the router's `RouterClient` instead of
over HTTP, so it is queued, placed and preempted like any request on ``/ollama``, without a
loopback hop. Kenning priorities map with `model_priority`: bulk jobs (3 and up) run as
background (3), everything else keeps its priority.
"""

from __future__ import annotations

from collections.abc import Sequence

from kenning.domain.embedding import EmbeddingError, EmbeddingErrorKind, batched, model_priority
from kenning.domain.priorities import BACKGROUND_PRIORITY
from kenning.router import NoBackendAvailable, RouterClient, RouterError, UpstreamError
from kenning.storage.embedders.ollama import DEFAULT_BATCH_SIZE, checked_vectors, error_kind


class RoutedEmbedder:
    """Embeds through the in-process router.

    Example: ``RoutedEmbedder(router.client(), model="nomic-embed-text", dimension=768)``.
    The router belongs to the app: ``aclose()`` leaves it running.
    """

    def __init__(
        self,
        client: RouterClient,
        *,
        model: str,
        dimension: int,
        batch_size: int = DEFAULT_BATCH_SIZE,
    ) -> None:
        if dimension < 1:
            raise ValueError("dimension must be at least 1")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._client = client
        self._model = model
        self._dimension = dimension
        self._batch_size = batch_size

    @property
    def model(self) -> str:
        return self._model

    @property
    def dimension(self) -> int:
        return self._dimension

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        """One router request per batch of ``batch_size`` texts, in order."""
        routed = model_priority(priority)
        vectors: list[list[float]] = []
        for batch in batched(texts, self._batch_size):
            vectors.extend(await self._embed_batch(batch, routed))
        return vectors

    async def aclose(self) -> None:
        return None

    async def _embed_batch(self, batch: Sequence[str], priority: int) -> list[list[float]]:
        payload = {"model": self._model, "input": list(batch)}
        try:
            answer = await self._client.request("/api/embed", payload, priority)
        except UpstreamError as exc:
            raise EmbeddingError(
                f"ollama answered {exc.status} through the router: {exc.message}",
                kind=error_kind(exc.status, exc.message),
            ) from exc
        except NoBackendAvailable as exc:
            raise EmbeddingError(
                f"the model router has no backend for the embedding: {exc}",
                kind=EmbeddingErrorKind.OPERATIONAL,
            ) from exc
        except RouterError as exc:  # a backend failure the router could not route around
            raise EmbeddingError(
                f"the model router failed: {exc}", kind=EmbeddingErrorKind.OPERATIONAL
            ) from exc
        except ValueError as exc:  # a 200 answer that is not JSON
            raise EmbeddingError(
                f"ollama answered something that is not JSON: {exc}",
                kind=EmbeddingErrorKind.PERMANENT,
            ) from exc
        return checked_vectors(answer, expected=len(batch), dimension=self._dimension)

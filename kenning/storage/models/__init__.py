"""Adapters of the ``ModelClient`` port: the in-process router, or any Ollama-compatible
URL over HTTP. Read first: ``factory.py`` (which one the settings ask for), then
``chat_body.py`` (what both send and read)."""

from kenning.storage.models.factory import create_model_client
from kenning.storage.models.ollama import OllamaModelClient
from kenning.storage.models.routed import RoutedModelClient

__all__ = ["OllamaModelClient", "RoutedModelClient", "create_model_client"]

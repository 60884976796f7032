"""Adapters of the ``Embedder`` port; pick one with ``create_embedder(settings)``.

``local`` (all-MiniLM-L6-v2 in-process), ``ollama`` (``/api/embed`` over HTTP) and ``hash``
(constant-time vectors for tests and benchmarks). Importing this package never imports torch.
"""

from kenning.storage.embedders.constant import ConstantTimeEmbedder
from kenning.storage.embedders.factory import create_embedder, open_embedder
from kenning.storage.embedders.local import LocalEmbedder
from kenning.storage.embedders.ollama import OllamaEmbedder

__all__ = [
    "ConstantTimeEmbedder",
    "LocalEmbedder",
    "OllamaEmbedder",
    "create_embedder",
    "open_embedder",
]

"""Retrieval tests reuse the ingestion tests' in-process runtime and GraphQL executor."""

from __future__ import annotations

from tests.integration.ingestion.conftest import api, clean, embedder, runtime

__all__ = ["api", "clean", "embedder", "runtime"]

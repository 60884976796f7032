"""Retrieval tests run on the ingestion tests' runtime: real PostgreSQL, in-process GraphQL."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.integration.ingestion.conftest import Api, api, clean, embedder, runtime

__all__ = ["Api", "api", "clean", "embedder", "ingest_all", "runtime"]

INGEST = """
mutation($input: IngestInput!) {
  ingest(input: $input) {
    __typename
    ... on IngestSuccess { chunks { id } }
    ... on ValidationError { message field }
    ... on ScopeError { message }
  }
}"""


async def ingest_all(api: Api, documents: Sequence[dict[str, Any]]) -> None:
    """Ingest each document through GraphQL; any failure stops the test."""
    for document in documents:
        result = (await api(INGEST, input=document))["ingest"]
        assert result["__typename"] == "IngestSuccess", result

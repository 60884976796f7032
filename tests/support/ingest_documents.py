"""GraphQL write operations and documents the feature tests ingest through ``Api``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tests.support.graphql_api import Api

SEED = """# TASK-123: Fix login bug
**Assignee:** John Doe
The issue affects UserService.kt authentication flow.
We need to modify the login() method.
relationships: [
  "TASK-123|ASSIGNED_TO|user:john",
  "TASK-123|AFFECTS|file:UserService.kt",
  "TASK-123|AFFECTS|method:UserService.login"
]
"""

INGEST = """
mutation($input: IngestInput!) {
  ingest(input: $input) {
    __typename
    ... on IngestSuccess { status contentHash chunks { id ordinal } nodes
                           edges { from edgeType to } warnings { line reason } }
    ... on ValidationError { code message field }
    ... on SensitiveContentError { code message findings { kind line } }
    ... on ScopeError { code message }
  }
}
"""


def doc(
    content: str, urn: str = "jira:TASK-123", client: str = "acme", **extra: object
) -> dict[str, object]:
    """The ingest input of a Jira issue document of ``client``."""
    return {
        "sourceUrn": urn,
        "kind": "jira_issue",
        "content": content,
        "mainNodeKey": "jira:TASK-123",
        "scope": {"clientId": client},
        **extra,
    }


INGEST_GRAPH = """
mutation($input: IngestGraphInput!) {
  ingestGraph(input: $input) {
    __typename
    ... on IngestGraphSuccess { status chunks { id } nodes edges { from edgeType to }
                                rejected { item index reason } }
    ... on ValidationError { field message }
  }
}
"""


REGISTER = """
mutation($alias: String!, $canonical: String!) {
  registerAlias(scope: {clientId: "acme"}, alias: $alias, canonical: $canonical) {
    __typename
    ... on RegisterAliasSuccess { mergedScopes alias { aliasKey canonicalKey } }
    ... on ValidationError { field message }
  }
}
"""


INGEST_EXPECTING_SUCCESS = """
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
        result = (await api(INGEST_EXPECTING_SUCCESS, input=document))["ingest"]
        assert result["__typename"] == "IngestSuccess", result

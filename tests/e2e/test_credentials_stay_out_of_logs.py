"""A real server never writes a credential from a request to its log, whether the request
is refused by the schema (a bad enum beside the credential) or by the secret check."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.support.server_process import Server

pytestmark = pytest.mark.e2e

CRED = "ghp_" + "Q9w8E7r6T5" * 3 + "Y4u3I2"  # a GitHub token's shape, 36 characters
INGEST = """mutation Leak($input: IngestInput!) { ingest(input: $input) { __typename
  ... on SensitiveContentError { code field } } }"""


def _post(server: Server, variables: dict[str, object]) -> dict[str, object]:
    response = httpx.post(
        f"{server.url}/graphql",
        json={"query": INGEST, "variables": variables},
        headers=server.headers,
        timeout=30,
    )
    body: dict[str, object] = response.json()
    return body


def _log_settled(server: Server, marker: int) -> str:
    # The server writes its log lines as it answers; give the last ones a moment.
    deadline = time.monotonic() + 5
    text = server.log.read_text()
    while time.monotonic() < deadline and text.count('"graphql.operation"') < marker:
        time.sleep(0.05)
        text = server.log.read_text()
    return text


def test_refused_requests_leave_the_credential_out_of_the_server_log(server: Server) -> None:
    operations = server.log.read_text().count('"graphql.operation"')
    document = {"sourceUrn": "e2e:leak", "kind": "note", "content": f"token {CRED}"}
    bad_enum = _post(server, {"input": {**document, "knowledgeType": "NOT_A_TYPE"}})
    assert bad_enum["errors"]
    urn = f"https://bot:{CRED}@github.com/acme/api"
    refused = _post(server, {"input": {**document, "content": "clean", "sourceUrn": urn}})
    assert refused["data"] == {
        "ingest": {"__typename": "SensitiveContentError", "code": "SENSITIVE_CONTENT",
                   "field": "sourceUrn"}
    }  # fmt: skip
    text = _log_settled(server, operations + 2)
    assert text.count('"graphql.operation"') >= operations + 2
    assert CRED not in text
    assert '"field": "sourceUrn"' in text  # the refusal is logged, by field name

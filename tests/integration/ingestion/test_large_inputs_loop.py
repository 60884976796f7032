"""The event loop keeps answering while the largest single inputs go through the real
paths: a 25 MB document that is one token, and one that is one long line of words, sent to
``ingest`` in a variable and inline in the document, and uploaded with ``ingestFile`` and
run by the app's own worker. No wake-up of a 5 ms sleeper on the server's loop may come
50 ms late (late by CPU time this process spent: ``LoopStalls``), and each input ends in a
typed refusal: ``ingest`` takes 2,000,000 characters (TOO_LARGE naming ``content``); the
file is split hard at the chunk size, a 25 MB token being no word, and its 27,594 chunks are
over the 20,000 a file may make (its job fails ``INVALID: TOO_LARGE``, nothing stored)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from tests.support.file_uploads import INGEST_FILE, PREFLIGHT, Uploads, multipart
from tests.support.loop_stall import LoopStalls

pytestmark = pytest.mark.integration

SIZE = 25 * 1024 * 1024
STALL = 0.050
DOCUMENTS = {
    "one-token": "a" * SIZE,
    "one-line-of-words": ("word " * (SIZE // 5 + 1))[:SIZE],
}
INGEST = """mutation I($input: IngestInput!) { ingest(input: $input) { __typename
  ... on Error { code field message } } }"""
REFUSED = {
    "__typename": "ValidationError", "code": "TOO_LARGE", "field": "content",
    "message": "content exceeds 2000000 characters",
}  # fmt: skip


async def _sent(body: bytes) -> AsyncIterator[bytes]:
    """The body in the 64 kB pieces a server reads it in."""
    for start in range(0, len(body), 65536):
        yield body[start : start + 65536]


async def _post(uploads: Uploads, body: bytes, headers: dict[str, str]) -> dict[str, Any]:
    answer = await uploads.http.post("/graphql", content=_sent(body), headers=headers)
    assert answer.status_code == 200, answer.text[:500]
    result: dict[str, Any] = answer.json()
    return result


def _json_headers(uploads: Uploads) -> dict[str, str]:
    return {**uploads.auth("acme"), "Content-Type": "application/json"}


@pytest.mark.parametrize("shape", DOCUMENTS)
async def test_a_25_mb_document_in_a_variable(uploads: Uploads, shape: str) -> None:
    variables = {"input": {"sourceUrn": "doc:big", "kind": "document", "content": DOCUMENTS[shape]}}
    body = json.dumps({"query": INGEST, "variables": variables}).encode()
    async with LoopStalls() as stalls:
        result = await _post(uploads, body, _json_headers(uploads))
    assert result["data"]["ingest"] == REFUSED
    assert stalls.longest < STALL, f"the loop stood still {stalls.worst}"


@pytest.mark.parametrize("shape", DOCUMENTS)
async def test_a_25_mb_document_inline_in_the_query(uploads: Uploads, shape: str) -> None:
    query = (
        'mutation { ingest(input: {sourceUrn: "doc:big", kind: "document", content: "'
        + DOCUMENTS[shape]
        + '"}) { __typename ... on Error { code field message } } }'
    )
    body = json.dumps({"query": query}).encode()
    async with LoopStalls() as stalls:
        result = await _post(uploads, body, _json_headers(uploads))
    assert result["data"]["ingest"] == REFUSED
    assert stalls.longest < STALL, f"the loop stood still {stalls.worst}"


@pytest.mark.parametrize("shape", DOCUMENTS)
async def test_a_25_mb_text_file_uploaded_and_run(
    uploads: Uploads, pool: asyncpg.Pool, shape: str
) -> None:
    upload = multipart(INGEST_FILE, "big.txt", DOCUMENTS[shape].encode())
    request = uploads.http.build_request(
        "POST", "/graphql", headers={**uploads.auth("acme"), **PREFLIGHT}, **upload
    )
    body, headers = request.read(), dict(request.headers)
    async with LoopStalls() as stalls:
        result = (await _post(uploads, body, headers))["data"]["ingestFile"]
        assert result["__typename"] == "IngestFileSuccess", result
        job = await uploads.finished(result["job"]["jobId"])
    assert job == {
        "status": "FAILED",
        "lastError": "INVALID: TOO_LARGE: the file would be stored as more than 20000 "
        "chunks (attachments included), the limit per file",
    }
    assert await pool.fetchval("SELECT count(*) FROM chunks") == 0
    assert await pool.fetchval("SELECT count(*) FROM source_files") == 0
    assert stalls.longest < STALL, f"the loop stood still {stalls.worst}"

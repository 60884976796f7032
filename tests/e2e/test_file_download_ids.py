"""``GET /files/{id}`` with an id that cannot be a file's (a NUL, thousands of characters,
not a UUID) over real HTTP: a 400 saying what an id looks like, no error logged; a
well-formed unknown id stays the 404 a hidden file gets."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest

from tests.support.server_process import Server

pytestmark = pytest.mark.e2e


def _lines_since(server: Server, start: int) -> list[str]:
    return server.log.read_text()[start:].splitlines()


@pytest.mark.parametrize(
    "file_id",
    ["%00", "a%00b", "x" * 5000, "not-a-file-id", str(uuid.uuid4()).upper(), f"{uuid.uuid4()}0"],
    ids=["nul", "nul-inside", "5000-chars", "words", "upper-case", "one-char-more"],
)
def test_an_id_that_cannot_be_a_file_is_a_400_saying_so(server: Server, file_id: str) -> None:
    start = len(server.log.read_text())
    answer = httpx.get(f"{server.url}/files/{file_id}", headers=server.headers, timeout=30)
    assert answer.status_code == 400, answer.text
    [error] = answer.json()["errors"]
    assert error["extensions"]["code"] == "BAD_REQUEST"
    assert error["message"].startswith("not a file id: ")
    lines = _lines_since(server, start)
    assert not [line for line in lines if "Traceback" in line or '"level": "error"' in line]


def test_a_well_formed_unknown_id_is_still_a_404(server: Server) -> None:
    answer = httpx.get(f"{server.url}/files/{uuid.uuid4()}", headers=server.headers, timeout=30)
    assert answer.status_code == 404
    assert answer.json()["errors"][0]["extensions"]["code"] == "NOT_FOUND"


def test_without_a_key_a_malformed_id_is_still_a_401(server: Server) -> None:
    answer = httpx.get(f"{server.url}/files/%00", timeout=30)
    assert answer.status_code == 401
    assert json.loads(answer.text)["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"

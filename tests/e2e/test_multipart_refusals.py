"""Malformed GraphQL multipart requests over real HTTP: each a GraphQL-shaped 400 whose
message names what is wrong, nothing logged above INFO; a client that hangs up mid-upload
is logged at INFO. A well-formed upload still goes through."""

from __future__ import annotations

import json
import socket
import time
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support.file_uploads import INGEST_FILE, PREFLIGHT
from tests.support.multipart_body import (
    BOUNDARY,
    CONTENT_TYPE,
    Part,
    body,
    field_part,
    file_part,
    json_part,
)
from tests.support.server_process import Server

pytestmark = pytest.mark.e2e

OPERATIONS = {"query": INGEST_FILE, "variables": {"file": None, "input": None}}
MAP = {"0": ["variables.file"]}


def _send(server: Server, content: bytes, content_type: str = CONTENT_TYPE) -> httpx.Response:
    headers = {**server.headers, **PREFLIGHT, "Content-Type": content_type}
    return httpx.post(f"{server.url}/graphql", content=content, headers=headers, timeout=60)


def _problems(server: Server, start: int) -> list[str]:
    """Log lines since ``start`` above INFO or with a traceback."""
    text = server.log.read_text()[start:]
    return [
        line
        for line in text.splitlines()
        if "Traceback" in line or not line.startswith("{") or '"level": "info"' not in line
    ]


CASES: dict[str, tuple[bytes, str]] = {
    "a 5,000-character part header": (
        body(
            Part('; name="operations"', json.dumps(OPERATIONS).encode(), {"X-Note": "n" * 5000}),
            json_part("map", MAP),
            file_part("0"),
        ),
        "malformed multipart body: Maximum header size exceeded",
    ),
    "a map path into a null variable": (
        body(
            json_part("operations", OPERATIONS),
            json_part("map", {"0": ["variables.input.file"]}),
            file_part("0"),
        ),
        "map path 'variables.input.file' of part '0' goes through null at 'variables.input'",
    ),
    "1,001 file parts": (
        body(
            json_part("operations", OPERATIONS),
            json_part("map", MAP),
            *[file_part(str(n)) for n in range(1001)],
        ),
        "malformed multipart body: Too many files. Maximum number of files is 1000.",
    ),
    "map not JSON": (
        body(
            json_part("operations", OPERATIONS), field_part("map", "{0: variables"), file_part("0")
        ),
        "the map part is not JSON",
    ),
    "map not an object": (
        body(json_part("operations", OPERATIONS), json_part("map", ["0"]), file_part("0")),
        "the map part must be a JSON object",
    ),
    "a map entry not a list of paths": (
        body(
            json_part("operations", OPERATIONS),
            json_part("map", {"0": "variables.file"}),
            file_part("0"),
        ),
        "the map entry of part '0' must be a list of paths",
    ),
    "a map path to a variable that does not exist": (
        body(
            json_part("operations", OPERATIONS),
            json_part("map", {"0": ["variables.upload"]}),
            file_part("0"),
        ),
        "map path 'variables.upload' of part '0' does not exist in operations",
    ),
    "a map path to a value that is no null placeholder": (
        body(
            json_part("operations", {**OPERATIONS, "variables": {"file": "x", "input": None}}),
            json_part("map", MAP),
            file_part("0"),
        ),
        "map path 'variables.file' of part '0' holds a value, not the null placeholder",
    ),
    "a map entry naming a part that was not sent": (
        body(json_part("operations", OPERATIONS), json_part("map", {"7": ["variables.file"]})),
        "the map names part '7', which the request does not have",
    ),
    "a map entry naming a text part": (
        body(json_part("operations", OPERATIONS), json_part("map", MAP), field_part("0", "x")),
        "part '0' of the map is not a file (a file part has a filename)",
    ),
    "a file part not named in the map": (
        body(
            json_part("operations", OPERATIONS),
            json_part("map", MAP),
            file_part("0"),
            file_part("stray"),
        ),
        "file part 'stray' is not named in the map",
    ),
    "operations not JSON": (
        body(field_part("operations", "{query"), json_part("map", MAP), file_part("0")),
        "the operations part is not JSON",
    ),
    "no operations part": (
        body(json_part("map", MAP), file_part("0")),
        "the multipart request has no operations part",
    ),
    "no map part": (
        body(json_part("operations", OPERATIONS), file_part("0")),
        "the multipart request has no map part",
    ),
    "a part header with no name": (
        body(json_part("operations", OPERATIONS), json_part("map", MAP), Part("", b"x")),
        'malformed multipart body: The Content-Disposition header field "name" must be provided.',
    ),
    "a broken boundary line": (
        body(json_part("operations", OPERATIONS)).replace(b"boundary\r\n", b"boundary!\r\n", 1),
        "malformed multipart body: Did not find CR at end of boundary (23)",
    ),
    "a non-file part over 1 MiB": (
        body(
            json_part("operations", {**OPERATIONS, "extensions": {"pad": "p" * 1_100_000}}),
            json_part("map", MAP),
            file_part("0"),
        ),
        "malformed multipart body: Part exceeded maximum size of 1024KB.",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_malformed_multipart_request_is_a_400_naming_the_mistake(
    server: Server, case: str
) -> None:
    content, says = CASES[case]
    start = len(server.log.read_text())
    answer = _send(server, content)
    assert answer.status_code == 400, answer.text
    [error] = answer.json()["errors"]
    assert (error["extensions"]["code"], error["message"]) == ("BAD_REQUEST", says)
    assert _problems(server, start) == []


def test_a_multipart_content_type_without_a_boundary_is_a_400(server: Server) -> None:
    start = len(server.log.read_text())
    content = body(json_part("operations", OPERATIONS), json_part("map", MAP), file_part("0"))
    answer = _send(server, content, "multipart/form-data")
    assert answer.status_code == 400, answer.text
    [error] = answer.json()["errors"]
    assert error["message"] == "malformed multipart body: Missing boundary in multipart."
    assert _problems(server, start) == []


def test_a_json_value_where_a_file_goes_is_refused_as_invalid(server: Server) -> None:
    start = len(server.log.read_text())
    answer = httpx.post(
        f"{server.url}/graphql",
        json={"query": INGEST_FILE, "variables": {"file": {"name": "a.txt"}}},
        headers=server.headers,
        timeout=30,
    )
    result = answer.json()["data"]["ingestFile"]
    assert (result["__typename"], result["code"], result["field"]) == (
        "ValidationError",
        "INVALID",
        "file",
    )
    assert _problems(server, start) == []


def test_a_well_formed_upload_still_goes_through(server: Server) -> None:
    content = body(
        json_part("operations", OPERATIONS),
        json_part("map", MAP),
        file_part("0", b"Plain text about the pelican service.", "notes.txt"),
    )
    answer = _send(server, content)
    assert answer.status_code == 200, answer.text
    result: dict[str, Any] = answer.json()["data"]["ingestFile"]
    assert result["__typename"] == "IngestFileSuccess", result
    assert result["file"]["filename"] == "notes.txt"


def test_a_client_hanging_up_mid_upload_is_logged_at_info(server: Server) -> None:
    start = len(server.log.read_text())
    address = urlsplit(server.url)
    head = body(json_part("operations", OPERATIONS), json_part("map", MAP))
    head = head.removesuffix(f"--{BOUNDARY}--\r\n".encode())
    head += file_part("0", b"x" * 64_000).encoded()[:-2]  # the file part, unfinished
    request = (
        "POST /graphql HTTP/1.1\r\n"
        f"Host: {address.netloc}\r\n"
        f"Authorization: Bearer {server.key}\r\n"
        "Apollo-Require-Preflight: true\r\n"
        f"Content-Type: {CONTENT_TYPE}\r\n"
        f"Content-Length: {len(head) + 1_000_000}\r\n\r\n"
    ).encode()
    with socket.create_connection((address.hostname or "", address.port or 80)) as sock:
        sock.sendall(request + head)
        time.sleep(0.5)  # the server is reading the body when the client goes
    deadline = time.monotonic() + 10
    while (
        time.monotonic() < deadline
        and "graphql.http.disconnected" not in (server.log.read_text()[start:])
    ):
        time.sleep(0.1)
    assert _problems(server, start) == []
    lines = [json.loads(line) for line in server.log.read_text()[start:].splitlines()]
    gone = [line for line in lines if line["event"] == "graphql.http.disconnected"]
    assert [(line["level"], "exc" in line) for line in gone] == [("info", False)]

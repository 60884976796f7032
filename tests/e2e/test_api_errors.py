"""Errors as GraphQL clients expect them, over real HTTP: codes, request ids, shapes, logs."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import httpx
import pytest
import websockets

from tests.support.server_process import Server

pytestmark = pytest.mark.e2e

INGEST = """mutation Ingest($input: IngestInput!) { ingest(input: $input) {
  __typename ... on Error { code message field } ... on IngestSuccess { status } } }"""


def post(server: Server, body: Any, **headers: str) -> httpx.Response:
    return httpx.post(
        f"{server.url}/graphql", json=body, headers={**server.headers, **headers}, timeout=30
    )


def only_error(response: httpx.Response) -> dict[str, Any]:
    errors = response.json()["errors"]
    assert len(errors) == 1, errors
    error: dict[str, Any] = errors[0]
    return error


def test_no_key_and_a_wrong_key_get_a_graphql_shaped_401_with_a_bearer_challenge(
    server: Server,
) -> None:
    missing = httpx.post(f"{server.url}/graphql", json={"query": "{ viewer { role } }"})
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"] == 'Bearer realm="kenning"'
    error = only_error(missing)
    assert error["extensions"]["code"] == "UNAUTHENTICATED"
    assert "Authorization: Bearer" in error["message"]
    assert error["extensions"]["requestId"] == missing.headers["x-request-id"]
    wrong = httpx.post(
        f"{server.url}/graphql",
        json={"query": "{ viewer { role } }"},
        headers={"Authorization": "Bearer kn_not-a-key"},
    )
    assert wrong.status_code == 401
    assert 'error="invalid_token"' in wrong.headers["www-authenticate"]
    assert only_error(wrong)["extensions"]["code"] == "UNAUTHENTICATED"


def test_malformed_json_is_a_graphql_shaped_400(server: Server) -> None:
    response = httpx.post(
        f"{server.url}/graphql",
        content=b'{"query": "{ viewer { role } }",',
        headers={**server.headers, "Content-Type": "application/json"},
    )
    assert response.status_code == 400
    error = only_error(response)
    assert error["extensions"]["code"] == "BAD_REQUEST"
    assert "JSON" in error["message"]


@pytest.mark.parametrize(
    ("document", "variables", "says", "field"),
    [
        (
            "query Jobs($lane: QueueLane) { jobs(filter: {lane: $lane}) { hasNextPage } }",
            {"lane": "FAST"},
            "Value 'FAST' does not exist in 'QueueLane' enum",
            "lane",
        ),
        (
            INGEST,
            {"input": {"kind": "note", "content": "x"}},
            "required field 'sourceUrn'",
            "input",
        ),
        (
            INGEST,
            {"input": {"sourceUrn": "u", "kind": "note", "content": "x", "priority": "high"}},
            "Int cannot represent non-integer value",
            "input.priority",
        ),
    ],
)
def test_bad_variables_get_their_real_message_as_bad_user_input(
    server: Server, document: str, variables: dict[str, Any], says: str, field: str
) -> None:
    response = post(server, {"query": document, "variables": variables})
    assert response.status_code == 200
    error = only_error(response)
    assert says in error["message"]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert error["extensions"]["field"] == field
    assert error["extensions"]["requestId"] == response.headers["x-request-id"]


@pytest.mark.parametrize(
    ("document", "field"),
    [
        ('{ neighbors(key: "user:a", depth: 9) { nodes { key } } }', "depth"),
        ('{ jobs(after: "garbage") { hasNextPage } }', "after"),
        ("{ jobs(first: 0) { hasNextPage } }", "first"),
        ('{ chunksByKind(kind: "note", limit: 0) { id } }', "limit"),
    ],
)
def test_argument_checks_of_plain_fields_are_typed_top_level_errors(
    server: Server, document: str, field: str
) -> None:
    error = only_error(post(server, {"query": document}))
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert (error["extensions"]["field"], error["extensions"]["reason"]) == (field, "INVALID")


def test_argument_checks_of_union_fields_are_error_members(server: Server) -> None:
    document = '{ search(query: "x", limit: 100000) { __typename ... on Error { code field } } }'
    data = post(server, {"query": document}).json()["data"]["search"]
    assert data == {"__typename": "ValidationError", "code": "INVALID", "field": "limit"}


def test_five_megabytes_of_content_is_too_large(server: Server) -> None:
    doc = {"sourceUrn": "doc:huge", "kind": "note", "content": "word " * 1_000_000}
    result = post(server, {"query": INGEST, "variables": {"input": doc}}).json()["data"]["ingest"]
    assert (result["__typename"], result["code"], result["field"]) == (
        "ValidationError",
        "TOO_LARGE",
        "content",
    )


def test_client_mistakes_are_logged_at_info_without_a_traceback(server: Server) -> None:
    response = post(server, {"query": "query Typo { nothing }"})
    rid = only_error(response)["extensions"]["requestId"]
    lines = [json.loads(line) for line in server.log.read_text().splitlines() if rid in line]
    rejected = [line for line in lines if line["event"] == "graphql.rejected"]
    assert rejected and all(line["level"] == "info" and "exc" not in line for line in rejected)
    assert rejected[0]["code"] == "GRAPHQL_VALIDATION_FAILED"
    [access] = [line for line in lines if line["event"] == "graphql.operation"]
    assert (access["operation"], access["outcome"]) == ("Typo", "GRAPHQL_VALIDATION_FAILED")
    assert "duration_ms" in access and access["request_id"] == rid


def test_a_subscription_over_http_is_told_where_subscriptions_live(server: Server) -> None:
    response = post(server, {"query": "subscription Tick { heartbeat(count: 1) { seq } }"})
    assert response.status_code == 400
    error = only_error(response)
    assert error["extensions"]["code"] == "BAD_REQUEST"
    assert "websocket" in error["message"]


def _doubling_fragments(n: int) -> str:
    lines = ["query Bomb { ...F0 }"]
    lines += [f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(n)]
    lines.append(f"fragment F{n} on Query {{ __typename }}")
    return "\n".join(lines)


def test_a_fragment_bomb_is_refused_at_once_while_healthz_stays_fast(server: Server) -> None:
    bomb = {"query": _doubling_fragments(30)}  # 2**30 fields in about 900 bytes
    healthz: list[float] = []
    stop = threading.Event()

    def poll() -> None:
        with httpx.Client(base_url=server.url, timeout=5) as client:
            while not stop.is_set():
                started = time.perf_counter()
                assert client.get("/healthz").status_code == 200
                healthz.append(time.perf_counter() - started)

    with httpx.Client(base_url=server.url, headers=server.headers, timeout=5) as client:
        client.post("/graphql", json={"query": "{ __typename }"})  # warm-up
        poller = threading.Thread(target=poll)
        poller.start()
        try:
            took: list[float] = []
            while len(took) < 5 or len(healthz) < 10:  # bombs while /healthz is polled
                started = time.perf_counter()
                answer = client.post("/graphql", json=bomb)
                took.append(time.perf_counter() - started)
                error = only_error(answer)
                assert error["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
                assert error["extensions"]["reason"] == "TOO_LARGE"
                assert "1,073,741,824 fields" in error["message"]
        finally:
            stop.set()
            poller.join()
    assert min(took) < 0.05, f"refusing took {min(took) * 1000:.0f} ms at best"
    healthz.sort()
    assert healthz[len(healthz) // 2] < 0.05, f"/healthz took {healthz}"


def post_raw(server: Server, body: Any) -> httpx.Response:
    # json.dumps escapes a lone surrogate as "\ud800", as a JavaScript client would send it.
    return httpx.post(
        f"{server.url}/graphql",
        content=json.dumps(body).encode(),
        headers={**server.headers, "Content-Type": "application/json"},
        timeout=30,
    )


PURGE = "mutation P($urn: String!) { purgeSource(sourceUrn: $urn) { __typename } }"


@pytest.mark.parametrize(
    ("document", "variables", "field"),
    [
        ("query S($q: String!) { search(query: $q) { __typename } }", {"q": "a\x00b"}, "q"),
        (
            INGEST,
            {
                "input": {
                    "sourceUrn": "u",
                    "kind": "note",
                    "content": "x",
                    "metadata": {"k\ud800": 1},
                }
            },
            "input.metadata",
        ),
        ('{ chunksByKind(kind: "no\\u0000te") { id } }', None, "kind"),
        (PURGE, {"urn": "urn:\udfff"}, "urn"),
        (
            INGEST,
            {"input": {"sourceUrn": "u", "kind": "n", "content": "x", "tags": ["\x00"]}},
            "input.tags[0]",
        ),
    ],
)
def test_unstorable_text_in_any_string_is_bad_user_input_naming_it(
    server: Server, document: str, variables: dict[str, Any] | None, field: str
) -> None:
    answer = post_raw(server, {"query": document, "variables": variables})
    error = only_error(answer)
    assert (error["extensions"]["code"], error["extensions"]["field"]) == ("BAD_USER_INPUT", field)
    assert "NUL" in error["message"] or "surrogate" in error["message"]


async def test_unstorable_text_in_a_subscription_is_refused_by_name(server: Server) -> None:
    async with websockets.connect(server.ws_url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": server.headers}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        query = "subscription P($id: ID!) { ingestionProgress(jobId: $id) { status } }"
        payload = {"query": query, "variables": {"id": "1\x00"}}
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
    assert message["type"] in ("error", "next"), message
    errors = message["payload"] if message["type"] == "error" else message["payload"]["errors"]
    assert (errors[0]["extensions"]["code"], errors[0]["extensions"]["field"]) == (
        "BAD_USER_INPUT",
        "id",
    )


def test_a_hundred_thousand_deep_json_body_is_a_400(server: Server) -> None:
    body = b'{"query": "{ __typename }", "variables": {"x": ' + b"[" * 100_000 + b"]" * 100_000
    answer = httpx.post(
        f"{server.url}/graphql",
        content=body + b"}}",
        headers={**server.headers, "Content-Type": "application/json"},
        timeout=30,
    )
    assert answer.status_code == 400
    error = only_error(answer)
    assert error["extensions"]["code"] == "BAD_REQUEST" and "deep" in error["message"]


async def test_a_hundred_thousand_deep_websocket_message_closes_with_4400(server: Server) -> None:
    async with websockets.connect(server.ws_url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init", "payload": server.headers}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        await ws.send(
            '{"type": "subscribe", "id": "1", "payload": ' + "[" * 100_000 + "]" * 100_000 + "}"
        )
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4400

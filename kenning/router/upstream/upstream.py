"""Calls to one Ollama backend over its `Http11Pool`; transport failures become
`BackendFailure`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from kenning.router.errors import BackendFailure
from kenning.router.upstream.http11 import Http11Pool, Response, TransportError

JSON = "application/json"
_DEFAULT = -1.0


@dataclass(frozen=True)
class Buffered:
    """A whole upstream answer."""

    status: int
    body: bytes
    media_type: str
    backend: str

    def json(self) -> Any:
        return json.loads(self.body)


def make_client(url: str, connect_timeout: float, read_timeout: float | None) -> Http11Pool:
    return Http11Pool(url, connect_timeout=connect_timeout, read_timeout=read_timeout)


def _media_type(response: Response) -> str:
    return response.headers.get("content-type", JSON).split(";")[0]


def _failure(backend: str, exc: TransportError) -> BackendFailure:
    return BackendFailure(backend, f"{type(exc).__name__}: {exc}")


async def send_buffered(
    client: Http11Pool,
    backend: str,
    method: str,
    path: str,
    body: bytes | None = None,
    *,
    read_timeout: float | None = _DEFAULT,
) -> Buffered:
    """The whole answer; ``read_timeout`` replaces the pool's for this call."""
    try:
        response = await client.request(method, path, body, read_timeout=read_timeout)
    except TransportError as exc:
        raise _failure(backend, exc) from exc
    return await read_rest(response, backend)


async def open_stream(client: Http11Pool, backend: str, path: str, body: bytes) -> Response:
    try:
        return await client.request("POST", path, body)
    except TransportError as exc:
        raise _failure(backend, exc) from exc


async def read_rest(response: Response, backend: str) -> Buffered:
    try:
        body = await response.aread()
    except TransportError as exc:
        raise _failure(backend, exc) from exc
    finally:
        await response.aclose()
    return Buffered(response.status_code, body, _media_type(response), backend)


async def post_json(
    client: Http11Pool, backend: str, path: str, payload: dict[str, Any]
) -> Buffered:
    return await send_buffered(client, backend, "POST", path, json.dumps(payload).encode())

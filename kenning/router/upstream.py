"""Calls to one Ollama backend over httpx; transport failures become `BackendFailure`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import httpx

from .errors import BackendFailure

JSON = "application/json"


@dataclass(frozen=True)
class Buffered:
    """A whole upstream answer."""

    status: int
    body: bytes
    media_type: str
    backend: str

    def json(self) -> Any:
        return json.loads(self.body)


def make_client(url: str, connect_timeout: float, read_timeout: float | None) -> httpx.AsyncClient:
    timeout = httpx.Timeout(connect=connect_timeout, read=read_timeout, write=30.0, pool=None)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
    return httpx.AsyncClient(base_url=url, timeout=timeout, limits=limits)


def _media_type(response: httpx.Response) -> str:
    return str(response.headers.get("content-type", JSON)).split(";")[0]


async def send_buffered(
    client: httpx.AsyncClient, backend: str, method: str, path: str, body: bytes | None = None
) -> Buffered:
    try:
        response = await client.request(
            method, path, content=body, headers={"content-type": JSON} if body else None
        )
    except httpx.TransportError as exc:
        raise BackendFailure(backend, f"{type(exc).__name__}: {exc}") from exc
    return Buffered(response.status_code, response.content, _media_type(response), backend)


async def open_stream(
    client: httpx.AsyncClient, backend: str, path: str, body: bytes
) -> httpx.Response:
    request = client.build_request("POST", path, content=body, headers={"content-type": JSON})
    try:
        return await client.send(request, stream=True)
    except httpx.TransportError as exc:
        raise BackendFailure(backend, f"{type(exc).__name__}: {exc}") from exc


async def read_rest(response: httpx.Response, backend: str) -> Buffered:
    try:
        body = await response.aread()
    except httpx.TransportError as exc:
        raise BackendFailure(backend, f"{type(exc).__name__}: {exc}") from exc
    finally:
        await response.aclose()
    return Buffered(response.status_code, body, _media_type(response), backend)


async def post_json(
    client: httpx.AsyncClient, backend: str, path: str, payload: dict[str, Any]
) -> Buffered:
    return await send_buffered(client, backend, "POST", path, json.dumps(payload).encode())

"""A lean HTTP/1.1 client for the router's calls to Ollama: a keep-alive pool per backend,
one socket write per request, responses parsed by httptools (llhttp, which also undoes
chunked transfer encoding).

Why not httpx here: httpx over httpcore and anyio spends more Python per request than the
loopback round trip it wraps, and the router pays it on every model call; this client does
the same exchange in a fraction of that (``bench.router``; figures on the documentation's
Benchmarks page). It speaks only what Ollama needs: ``http://`` or ``https://``, HTTP/1.1,
keep-alive, bodies with a length or chunked; no redirects, cookies, proxies or HTTP/2.

`Http11Pool` (here) hands out connections; `http11_connection` holds a connection and the
`Response` it carries; `http11_errors` the exception tree, re-exported here.
"""

from __future__ import annotations

import asyncio
import ssl
from collections import deque
from typing import Final
from urllib.parse import urlsplit

from kenning.router.upstream.http11_connection import Http11Connection, Response
from kenning.router.upstream.http11_errors import (
    ConnectError,
    ReadTimeout,
    RemoteProtocolError,
    TransportError,
)

__all__ = [
    "ConnectError",
    "Http11Pool",
    "ReadTimeout",
    "RemoteProtocolError",
    "Response",
    "TransportError",
]

_UNSET: Final = -1.0


class Http11Pool:
    """Keep-alive connections to one backend.

    Example: ``pool = Http11Pool("http://127.0.0.1:11434", connect_timeout=2, read_timeout=600)``
    then ``response = await pool.request("POST", "/api/embed", body)``.
    """

    def __init__(
        self,
        url: str,
        *,
        connect_timeout: float,
        read_timeout: float | None,
        max_idle: int = 64,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"backend URL must be http(s)://host[:port][/path], got {url!r}")
        secure = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if secure else 80)
        self._ssl = ssl.create_default_context() if secure else None
        self._prefix = parts.path.rstrip("/")
        self._host_header = parts.netloc
        self._connect_timeout = connect_timeout
        self._read_timeout = read_timeout
        self._max_idle = max_idle
        self._idle: deque[Http11Connection] = deque()
        self._all: set[Http11Connection] = set()
        self._closed = False

    async def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        *,
        content_type: str = "application/json",
        read_timeout: float | None = _UNSET,
    ) -> Response:
        """Send a request; returns once the response head arrived (``read_timeout`` replaces
        the pool's for this call)."""
        if read_timeout == _UNSET:
            read_timeout = self._read_timeout
        head = f"{method} {self._prefix}{path} HTTP/1.1\r\nHost: {self._host_header}\r\n"
        if body is not None:
            head += f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n"
        message = (head + "\r\n").encode("latin-1") + (body or b"")
        for attempt in (1, 2):
            conn, reused = await self._connection()
            response = Response(self, conn, read_timeout)
            conn.response = response
            assert conn.transport is not None
            conn.transport.write(message)
            try:
                await response.read_head()
            except RemoteProtocolError:
                conn.abort()
                if reused and not response.started and attempt == 1:
                    continue  # an idle connection the backend had closed: use a fresh one
                raise
            except BaseException:
                conn.abort()
                raise
            return response
        raise AssertionError("unreachable")  # pragma: no cover

    async def _connection(self) -> tuple[Http11Connection, bool]:
        while self._idle:
            conn = self._idle.pop()
            if not conn.lost and conn.transport is not None and not conn.transport.is_closing():
                return conn, True
        if self._closed:
            raise ConnectError("the pool is closed")
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(self._connect_timeout):
                _, conn = await loop.create_connection(
                    lambda: Http11Connection(self._all),
                    self._host,
                    self._port,
                    ssl=self._ssl,
                    server_hostname=self._host if self._ssl else None,
                )
        except TimeoutError:
            raise ConnectError(
                f"no connection to {self._host}:{self._port} within {self._connect_timeout} s"
            ) from None
        except OSError as exc:
            raise ConnectError(f"{self._host}:{self._port}: {exc}") from exc
        return conn, False

    def put_back(self, conn: Http11Connection) -> None:
        if self._closed or conn.lost or len(self._idle) >= self._max_idle:
            conn.abort()
        else:
            self._idle.append(conn)

    async def aclose(self) -> None:
        """Close every connection, idle or busy."""
        self._closed = True
        self._idle.clear()
        for conn in list(self._all):
            conn.abort()

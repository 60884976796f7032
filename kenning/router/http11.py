"""A lean HTTP/1.1 client for the router's calls to Ollama: a keep-alive pool per backend,
one socket write per request, responses parsed by httptools (llhttp, which also undoes
chunked transfer encoding).

Why not httpx here: on these machines httpx over httpcore and anyio spends about 0.8 ms of
Python per request, more than the loopback round trip it wraps, and the router pays it on
every model call (``bench/router.py``; figures in the README's "Model router"). This client
does the same exchange in about 0.1 ms. It speaks only what Ollama needs: ``http://`` or
``https://``, HTTP/1.1, keep-alive, bodies with a length or chunked; no redirects, cookies,
proxies or HTTP/2.

    TransportError            the exchange with the backend failed
    ├── ConnectError          refused, unreachable, or no connection within the timeout
    ├── ReadTimeout           no byte for the read timeout
    └── RemoteProtocolError   closed or reset before the response ended, or not HTTP
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
from collections import deque
from collections.abc import AsyncIterator
from typing import Final, cast
from urllib.parse import urlsplit

import httptools

_MAX_BUFFER: Final = 1 << 20  # bytes read ahead of the consumer before reading pauses
_UNSET: Final = -1.0


class TransportError(Exception):
    """The exchange with the backend failed."""


class ConnectError(TransportError):
    """No connection could be made."""


class ReadTimeout(TransportError):
    """The backend sent nothing for the read timeout."""


class RemoteProtocolError(TransportError):
    """The connection ended before the response did, or the answer is not HTTP/1.1."""


class _Connection(asyncio.Protocol):
    """One TCP connection carrying one exchange at a time; fed by the event loop."""

    def __init__(self, registry: set[_Connection]) -> None:
        self.registry = registry
        self.transport: asyncio.Transport | None = None
        self.parser = httptools.HttpResponseParser(self)
        self.response: Response | None = None
        self.lost = False

    # asyncio.Protocol
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)
        self.registry.add(self)
        sock = transport.get_extra_info("socket")
        if sock is not None:  # a response must not wait on Nagle and delayed ACKs
            with contextlib.suppress(OSError, AttributeError):
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        if self.response is None:  # bytes nobody asked for: the connection is unusable
            self.abort()
            return
        self.response.started = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self.response.fail(RemoteProtocolError(f"invalid HTTP response: {exc}"))
            self.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.registry.discard(self)
        if self.response is not None:
            reason = f": {exc}" if exc else ""
            self.response.fail(RemoteProtocolError(f"connection closed mid-response{reason}"))

    def pause_writing(self) -> None:  # request bodies are written whole; nothing to pace
        pass

    def resume_writing(self) -> None:
        pass

    # httptools callbacks
    def on_header(self, name: bytes, value: bytes) -> None:
        if self.response is not None:
            self.response.headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        if self.response is not None:
            self.response.status_code = self.parser.get_status_code()
            self.response.wake_head()

    def on_body(self, body: bytes) -> None:
        if self.response is not None:
            self.response.feed(body)

    def on_message_complete(self) -> None:
        if self.response is not None:
            self.response.finish(self.parser.should_keep_alive())

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()


class Response:
    """An answer whose head has arrived; read the body with `aiter_bytes` or `aread`, then
    `aclose` (an unfinished body closes the connection, which cancels the work upstream)."""

    def __init__(self, pool: Http11Pool, conn: _Connection, read_timeout: float | None) -> None:
        self.status_code = 0
        self.headers: dict[str, str] = {}
        self.content = b""
        self.started = False
        self.complete = False
        self._pool, self._conn, self._timeout = pool, conn, read_timeout
        self._loop = asyncio.get_running_loop()
        self._head: asyncio.Future[None] = self._loop.create_future()
        self._waiter: asyncio.Future[None] | None = None
        self._chunks: deque[bytes] = deque()
        self._buffered = 0
        self._paused = False
        self._keep_alive = False
        self._error: TransportError | None = None
        self._closed = False

    # fed by the connection
    def wake_head(self) -> None:
        if not self._head.done():
            self._head.set_result(None)

    def feed(self, data: bytes) -> None:
        self._chunks.append(data)
        self._buffered += len(data)
        if self._buffered > _MAX_BUFFER and not self._paused and self._conn.transport:
            self._paused = True
            self._conn.transport.pause_reading()
        self._wake()

    def finish(self, keep_alive: bool) -> None:
        self.complete, self._keep_alive = True, keep_alive
        self._wake()

    def fail(self, error: TransportError) -> None:
        if not self.complete and self._error is None:
            self._error = error
            self.wake_head()
            self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    # read by the caller
    async def _wait(self, future: asyncio.Future[None]) -> None:
        if self._timeout is None:
            await future
            return
        try:
            async with asyncio.timeout(self._timeout):
                await future
        except TimeoutError:
            raise ReadTimeout(f"no answer within {self._timeout} s") from None

    async def read_head(self) -> None:
        await self._wait(self._head)
        if self.status_code == 0:
            raise self._error or RemoteProtocolError("no response")

    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        """The body as it arrives (whatever is buffered comes as one piece)."""
        while True:
            if self._chunks:
                chunk = self._chunks[0] if len(self._chunks) == 1 else b"".join(self._chunks)
                self._chunks.clear()
                self._buffered = 0
                if self._paused and self._conn.transport is not None:
                    self._paused = False
                    self._conn.transport.resume_reading()
                yield chunk
            elif self.complete:
                await self.aclose()
                return
            elif self._error is not None:
                raise self._error
            else:
                self._waiter = self._loop.create_future()
                await self._wait(self._waiter)

    async def aread(self) -> bytes:
        """The whole body; the connection goes back to the pool."""
        self.content = b"".join([chunk async for chunk in self.aiter_bytes()])
        return self.content

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._conn.response = None
        if self.complete and self._keep_alive and not self._chunks:
            self._pool.put_back(self._conn)
        else:
            self._conn.abort()


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
        self._idle: deque[_Connection] = deque()
        self._all: set[_Connection] = set()
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

    async def _connection(self) -> tuple[_Connection, bool]:
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
                    lambda: _Connection(self._all),
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

    def put_back(self, conn: _Connection) -> None:
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

"""One keep-alive connection to a backend (`Http11Connection`, fed by the event loop and
parsed by httptools) and the `Response` it carries, read as it arrives."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections import deque
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Final, cast

import httptools

from kenning.router.upstream.http11_errors import ReadTimeout, RemoteProtocolError, TransportError

if TYPE_CHECKING:
    from kenning.router.upstream.http11 import Http11Pool

_MAX_BUFFER: Final = 1 << 20  # bytes read ahead of the consumer before reading pauses


class Http11Connection(asyncio.Protocol):
    """One TCP connection carrying one exchange at a time; fed by the event loop."""

    def __init__(self, registry: set[Http11Connection]) -> None:
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

    def __init__(
        self, pool: Http11Pool, conn: Http11Connection, read_timeout: float | None
    ) -> None:
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

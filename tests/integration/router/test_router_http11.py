"""The router's HTTP/1.1 client against a scripted loopback server: keep-alive, stale
connections, chunked and large bodies, timeouts, failures, a base path."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from kenning.router.upstream.http11 import (
    ConnectError,
    Http11Pool,
    ReadTimeout,
    RemoteProtocolError,
)

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter, "Scripted"], Awaitable[None]]


@dataclass
class Scripted:
    """A loopback server running ``handler`` per connection; records request lines."""

    handler: Handler
    url: str = ""
    connections: int = 0
    requests: list[str] = field(default_factory=list)

    async def read_request(self, reader: asyncio.StreamReader) -> bytes | None:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.requests.append(lines[0])
        headers = dict(line.split(": ", 1) for line in lines[1:] if line)
        length = int(headers.get("Content-Length", "0"))
        return await reader.readexactly(length) if length else b""


@contextlib.asynccontextmanager
async def scripted(handler: Handler) -> AsyncIterator[Scripted]:
    state = Scripted(handler)

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        state.connections += 1
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            await handler(reader, writer, state)
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    state.url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"
    async with server:
        yield state


def answer(body: bytes, status: str = "200 OK") -> bytes:
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode() + body


async def echo_forever(r: asyncio.StreamReader, w: asyncio.StreamWriter, s: Scripted) -> None:
    while True:
        body = await s.read_request(r)
        w.write(answer(b'{"echo": "' + (body or b"") + b'"}'))


def pool(url: str, read_timeout: float | None = 5.0) -> Http11Pool:
    return Http11Pool(url, connect_timeout=1.0, read_timeout=read_timeout)


async def test_keep_alive_reuses_one_connection_and_keeps_the_base_path() -> None:
    async with scripted(echo_forever) as server:
        client = pool(server.url + "/ollama/")
        for i in range(5):
            response = await client.request("POST", "/api/embed", f"b{i}".encode())
            assert (response.status_code, await response.aread()) == (200, b'{"echo": "b%d"}' % i)
            assert response.headers["content-type"] == "application/json"
        await client.aclose()
    assert server.connections == 1
    assert server.requests == ["POST /ollama/api/embed HTTP/1.1"] * 5


async def test_an_idle_connection_the_server_closed_is_replaced() -> None:
    async def once(r: asyncio.StreamReader, w: asyncio.StreamWriter, s: Scripted) -> None:
        await s.read_request(r)
        w.write(answer(b"{}"))
        await w.drain()

    async with scripted(once) as server:
        client = pool(server.url)
        for _ in range(3):
            response = await client.request("GET", "/api/version")
            assert await response.aread() == b"{}"
            await asyncio.sleep(0.05)  # the server closes the idle connection meanwhile
        await client.aclose()
    assert server.connections == 3


async def test_chunked_and_large_bodies_arrive_whole_and_in_order() -> None:
    big = bytes(range(256)) * 12_000  # ~3 MB: reading pauses and resumes on the way

    async def chunked(r: asyncio.StreamReader, w: asyncio.StreamWriter, s: Scripted) -> None:
        await s.read_request(r)
        w.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for line in (b'{"n": 1}\n', b'{"n": 2}\n', b'{"done": true}\n'):
            w.write(b"%x\r\n%s\r\n" % (len(line), line))
            await w.drain()
            await asyncio.sleep(0.01)
        w.write(b"0\r\n\r\n")
        await s.read_request(r)
        w.write(answer(big))

    async with scripted(chunked) as server:
        client = pool(server.url)
        response = await client.request("POST", "/api/generate", b"{}")
        pieces = [piece async for piece in response.aiter_bytes()]
        assert b"".join(pieces) == b'{"n": 1}\n{"n": 2}\n{"done": true}\n' and len(pieces) == 3
        large = await client.request("POST", "/api/embed", b"{}")
        assert await large.aread() == big
        await client.aclose()
    assert server.connections == 1


async def test_failures_become_transport_errors() -> None:
    dropped = asyncio.Event()

    async def stall(r: asyncio.StreamReader, w: asyncio.StreamWriter, s: Scripted) -> None:
        await s.read_request(r)
        if s.requests[-1].startswith("GET /slow"):
            await r.read()  # answer nothing until the client gives up
            return
        w.write(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial")
        await w.drain()
        if s.requests[-1].startswith("GET /head"):
            assert await r.read() == b""  # the client hung up: upstream work is cancelled
            dropped.set()
        # /cut: closes with 93 bytes missing

    async with scripted(stall) as server:
        client = pool(server.url, read_timeout=0.2)
        with pytest.raises(ReadTimeout):
            await client.request("GET", "/slow")
        response = await client.request("GET", "/cut")
        with pytest.raises(RemoteProtocolError, match="mid-response"):
            await response.aread()
        unfinished = await client.request("GET", "/head", read_timeout=None)
        await unfinished.aclose()  # the connection is dropped, not reused
        await asyncio.wait_for(dropped.wait(), 2)
        await client.aclose()
        port = int(server.url.rsplit(":", 1)[1])
    assert server.connections == 3
    with pytest.raises(ConnectError):
        await pool(f"http://127.0.0.1:{port}").request("GET", "/api/version")
    with pytest.raises(ValueError, match="backend URL"):
        Http11Pool("unix:///tmp/ollama.sock", connect_timeout=1, read_timeout=1)

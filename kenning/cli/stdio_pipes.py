"""Standard input and output as the event loop's own pipes, for ``kenning mcp``.

The MCP SDK's stdio transport reads each line and writes each answer through a worker
thread (anyio's file wrapper): three thread hops per call, most of what the stdio hop
cost. When stdin and stdout are pipes, sockets or terminals (how MCP clients launch a
command), the loop reads and writes them directly instead; anything else (a regular
file) keeps the SDK's own transport.

As the SDK does, while serving fd 0 reads the null device and fd 1 writes to stderr, so a
stray print cannot tear the wire; both are restored on exit.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

# A line is one JSON-RPC message: an ingest's content can be as large as the server's body.
MAX_LINE_BYTES = 256 * 1024 * 1024


def _loop_can_use(fd: int) -> bool:
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


class PipeLines:
    """The lines of the input pipe, as text, until it closes."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> PipeLines:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        return line.decode("utf-8", errors="replace")


class PipeText:
    """Text written to the output pipe; ``flush`` waits until the pipe has taken it."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


@dataclass(frozen=True, slots=True)
class StdioPipes:
    lines: PipeLines
    text: PipeText


def _divert(fd: int, to: int) -> int:
    """A private duplicate of ``fd`` (the wire), with ``fd`` itself pointed at ``to``."""
    private = os.dup(fd)
    os.set_inheritable(private, False)
    os.dup2(to, fd)
    return private


async def _connect(
    wire_in: int, wire_out: int
) -> tuple[StdioPipes, asyncio.BaseTransport, asyncio.BaseTransport]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=MAX_LINE_BYTES)
    read_transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(wire_in, "rb", closefd=False)
    )
    write_transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(wire_out, "wb", closefd=False)
    )
    writer = asyncio.StreamWriter(write_transport, protocol, reader, loop)
    return StdioPipes(PipeLines(reader), PipeText(writer)), read_transport, write_transport


@asynccontextmanager
async def stdio_pipes() -> AsyncIterator[StdioPipes | None]:
    """stdin and stdout on the loop, or ``None`` when the loop cannot poll them (a regular
    file, the null device): the caller then uses the SDK's transport."""
    if not (_loop_can_use(0) and _loop_can_use(1)):
        yield None
        return
    null = os.open(os.devnull, os.O_RDONLY)
    wire_in, wire_out = _divert(0, null), _divert(1, 2)
    os.close(null)
    try:
        pipes, *transports = await _connect(wire_in, wire_out)
    except (OSError, ValueError):
        pipes, transports = None, []
    try:
        yield pipes
    finally:
        for transport in transports:
            transport.close()
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)
        os.close(wire_in)
        os.close(wire_out)

"""A request body streamed over a raw socket while the answer is awaited, as a client sending
a huge upload sees it: httpx would send the whole body before it reads a byte of the answer.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from urllib.parse import urlsplit

MIB = 1024 * 1024


@dataclass(frozen=True)
class Answered:
    """The answer's status and body, and how many body bytes the client had handed to its
    socket when the answer's head arrived (more than the server read: kernel buffers)."""

    status: int
    body: bytes
    sent: int


async def stream_until_answered(
    url: str,
    path: str,
    headers: dict[str, str],
    total: int,
    *,
    head: bytes = b"",
    chunk: int = MIB,
    within: float = 60.0,
) -> Answered:
    """POST ``total`` bytes (``head``, then ``x`` filler) chunked to ``url + path``, stopping
    once the answer's head arrives; fails if none arrives ``within`` seconds."""
    parts = urlsplit(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    lines = [
        f"POST {path} HTTP/1.1",
        f"Host: {parts.netloc}",
        "Transfer-Encoding: chunked",
        "Content-Type: application/json",
        *(f"{name}: {value}" for name, value in headers.items()),
    ]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
    sent = 0

    async def send() -> None:
        nonlocal sent
        piece = head + b"x" * (chunk - len(head))
        while sent < total:
            sent += len(piece)
            writer.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
            # drain() returns at once while the server keeps reading: without a turn of
            # the loop the reader would not see an answer until the whole body was sent.
            await asyncio.sleep(0)
            piece = b"x" * chunk
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    sender = asyncio.create_task(send())
    try:
        answer_head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), within)
        sent_then = sent
        status = int(answer_head.split(b" ", 2)[1])
        length = next(
            int(line.split(b":", 1)[1])
            for line in answer_head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        body = await asyncio.wait_for(reader.readexactly(length), within)
    finally:
        sender.cancel()
        # The server may close mid-upload once it has answered: the writes then fail.
        with contextlib.suppress(asyncio.CancelledError, ConnectionError):
            await sender
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
    return Answered(status, body, sent_then)

"""A response body read from the wire and its ``Content-Encoding`` undone, under a byte limit.

Why not httpx's decoding: it inflates each network read whole, with no bound on the output,
so one 64 KiB read of a ``gzip, gzip`` page becomes gigabytes before any size check runs.
Here the body is read raw and every layer is undone a step at a time (``inflater``), at
most ``STEP`` bytes per step. The wire and each layer of decoding are held to the same
limit as the decoded body (the inner layers of a stacked encoding are compressed text, no
larger than the page), so memory stays within the limit plus a step per layer, and the CPU
spent is bounded by the limit too. Between steps the event loop runs, so a slow decode
neither blocks the server nor outlives the fetch's timeout.

Decoded: ``gzip`` (also named ``x-gzip``) and ``deflate``, at most ``MAX_CODINGS`` stacked;
``identity`` is nothing to undo. Nothing else is (no ``br`` or ``zstd`` decoder is installed),
so ``ACCEPT_ENCODING`` offers only these and any other coding is refused before the body is
read (``UnsupportedEncodingError``). A body that does not decode raises ``FetchError``; one
over the limit, ``PageTooLargeError``.

Example::

    decoder = BodyDecoder(reply.headers.get("content-encoding", ""), url=url, limit=cap)
    body = await read_body(reply.aiter_raw(), decoder)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable
from typing import Final

from kenning.domain.sources.crawl.errors import PageTooLargeError, UnsupportedEncodingError
from kenning.storage.sources.crawl.inflater import Inflater

ACCEPT_ENCODING: Final = "gzip, deflate"
# One coding is usual; two covers a server that compresses what it stored compressed.
MAX_CODINGS: Final = 2
STEP: Final = 64 * 1024

_NAMES: Final = {"gzip": "gzip", "x-gzip": "gzip", "deflate": "deflate"}


def page_too_large(url: str, limit: int, where: str = "") -> PageTooLargeError:
    """The error of a page over ``limit`` bytes (``where``: at which layer, if not the body)."""
    return PageTooLargeError(f"{url} is larger than {limit} bytes{where}", limit=limit)


def codings_of(content_encoding: str, url: str) -> tuple[str, ...]:
    """The codings a ``Content-Encoding`` names, in the order they were applied.

    ``UnsupportedEncodingError`` for a coding not decoded here, or more than ``MAX_CODINGS``.
    """
    named = (name.strip().lower() for name in content_encoding.split(","))
    codings = [name for name in named if name and name != "identity"]
    for name in codings:
        if name not in _NAMES:
            raise UnsupportedEncodingError(
                f"{url} is encoded as {name[:40]!r}; a crawl decodes gzip and deflate",
                encoding=name[:40],
            )
    if len(codings) > MAX_CODINGS:
        shown = ", ".join(codings)[:80]
        raise UnsupportedEncodingError(
            f"{url} is encoded {len(codings)} times over ({shown}); a crawl undoes at most "
            f"{MAX_CODINGS} stacked codings",
            encoding=shown,
        )
    return tuple(_NAMES[name] for name in codings)


class BodyDecoder:
    """Undoes the codings of one body, outermost first; every layer within ``limit``.

    ``feed`` each raw read, then ``read`` until it answers ``None``; ``finish`` at the end.
    """

    def __init__(self, content_encoding: str, *, url: str, limit: int) -> None:
        self._url, self._limit = url, limit
        # Applied first, undone last: the outermost coding is the last one named.
        codings = reversed(codings_of(content_encoding, url))
        self._layers = [Inflater(coding, url) for coding in codings]
        self._wire = 0
        self._plain = b""

    @property
    def produced(self) -> int:
        """Decoded bytes given out so far."""
        return self._layers[-1].produced if self._layers else self._wire - len(self._plain)

    def feed(self, raw: bytes) -> None:
        self._wire += len(raw)
        if self._wire > self._limit:
            raise page_too_large(self._url, self._limit, " as sent")
        if self._layers:
            self._layers[0].feed(raw)
        else:
            self._plain += raw

    def read(self) -> bytes | None:
        """One bounded step: decoded bytes (at most ``STEP``), ``b""`` when the step decoded
        an inner layer only, ``None`` once the input fed is used up."""
        if not self._layers:
            out, self._plain = self._plain, b""
            return out or None
        return self._pull(len(self._layers) - 1)

    def finish(self) -> None:
        """Check that every layer ended where its stream did."""
        for layer in self._layers:
            layer.finish()

    def _pull(self, index: int) -> bytes | None:
        # At most one step of each layer per call: an inner layer that decodes to nothing
        # (empty gzip members by the million) must not keep the loop in one call.
        layer = self._layers[index]
        # One byte over the limit is enough to know the page is too large.
        out = layer.read(min(STEP, self._limit + 1 - layer.produced))
        if layer.produced > self._limit:
            inner = index < len(self._layers) - 1
            where = f" once its {layer.coding} coding is undone" if inner else ""
            raise page_too_large(self._url, self._limit, where)
        if out:
            return out
        if index == 0:
            return None
        upstream = self._pull(index - 1)
        if upstream is None:
            return None
        layer.feed(upstream)
        return b""


async def read_body(chunks: AsyncIterable[bytes], decoder: BodyDecoder) -> bytes:
    """The decoded body of the raw ``chunks``, joined once at the end (never past the limit)."""
    parts: list[bytes] = []
    async for raw in chunks:
        decoder.feed(raw)
        while (part := decoder.read()) is not None:
            parts.append(part)
            # One raw read may decode to many steps: let other work, and timeouts, run.
            await asyncio.sleep(0)
    decoder.finish()
    return b"".join(parts)

"""One content coding (gzip or deflate) undone a bounded step at a time.

Each step asks zlib for at most ``limit`` bytes (``max_length``) and keeps what zlib left
unconsumed for the next step, so however well a body compresses, one step never holds
more than ``limit`` bytes of output. gzip bodies may hold several members, read one after
another as ``gzip -d`` reads them (NUL padding between them skipped, as Python's ``gzip``
skips it). ``deflate`` is zlib-wrapped as RFC 9110 says, or raw deflate as some servers send
it and browsers accept: the first two bytes decide. Bytes after a deflate stream's end are
ignored, as httpx and browsers ignore them.
"""

from __future__ import annotations

import zlib
from typing import Final

from kenning.domain.sources.crawl.errors import FetchError

CODINGS: Final = frozenset({"gzip", "deflate"})

_GZIP: Final = 16 + zlib.MAX_WBITS
_ZLIB: Final = zlib.MAX_WBITS
_RAW: Final = -zlib.MAX_WBITS


def _zlib_header(first: bytes) -> bool:
    """Whether two bytes open a zlib stream (RFC 1950: method 8, header check mod 31)."""
    return first[0] & 0x0F == 8 and first[0] >> 4 <= 7 and (first[0] << 8 | first[1]) % 31 == 0


class Inflater:
    """Undoes ``coding`` of one body; ``produced`` counts the bytes it has given out.

    Feed it input only once ``read`` has answered ``b""`` (it needs more), so the input it
    holds stays one network read or one step of the layer before.
    """

    def __init__(self, coding: str, url: str) -> None:
        if coding not in CODINGS:
            raise ValueError(f"no inflater for {coding!r}")
        self.coding, self.produced = coding, 0
        self._url = url
        self._zlib = zlib.decompressobj(_GZIP if coding == "gzip" else _ZLIB)
        self._pending = b""
        self._seen = False
        # A deflate body's wrapping is known once its first two bytes are.
        self._framed = coding == "gzip"

    def feed(self, data: bytes) -> None:
        self._pending += data
        self._seen = self._seen or bool(data)

    def read(self, limit: int) -> bytes:
        """At most ``limit`` (≥ 1) decoded bytes; ``b""`` when the input fed is used up."""
        if limit < 1:
            raise ValueError("limit must be at least 1 (zlib reads 0 as no limit)")
        while self._pending:
            if not self._framed:
                if len(self._pending) < 2:
                    return b""
                self._framed = True
                if not _zlib_header(self._pending):
                    self._zlib = zlib.decompressobj(_RAW)
            if self._zlib.eof and not self._next_member():
                return b""
            try:
                out = self._zlib.decompress(self._pending, limit)
            except zlib.error as error:
                raise self._failure(f"is corrupt ({error})") from None
            zlib_ = self._zlib
            self._pending = zlib_.unused_data if zlib_.eof else zlib_.unconsumed_tail
            if out:
                self.produced += len(out)
                return out
        if self._framed and not self._zlib.eof:
            # zlib may have used up its input yet still hold output a step's limit kept back
            # (a long run at a raw deflate stream's end): nothing more may come to flush it.
            out = self._zlib.decompress(b"", limit)
            self.produced += len(out)
            return out
        return b""

    def finish(self) -> None:
        """Check that the body ended where its stream did (an empty body is empty)."""
        if self._seen and (self._pending or not self._zlib.eof):
            raise self._failure("ends before its stream does")

    def _next_member(self) -> bool:
        """After a stream's end: start the next gzip member, if any; drop what is left."""
        rest = self._pending.lstrip(b"\0") if self.coding == "gzip" else b""
        self._pending = rest
        if rest:
            self._zlib = zlib.decompressobj(_GZIP)
        return bool(rest)

    def _failure(self, what: str) -> FetchError:
        return FetchError(f"{self._url} does not decode: its {self.coding} body {what}")

"""The bounded content decoder on its own: exact limits, gzip members, stacked codings,
bodies that do not decode, encodings refused, and how much memory a bomb may take."""

from __future__ import annotations

import asyncio
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kenning.domain.sources.crawl import FetchError, PageTooLargeError, UnsupportedEncodingError
from kenning.storage.sources.crawl.content_decoding import (
    STEP,
    BodyDecoder,
    codings_of,
    read_body,
)
from kenning.storage.sources.crawl.inflater import Inflater
from tests.support.compression_bombs import (
    MIB,
    gzip_of,
    gzip_zeros,
    raw_deflate_of,
    zlib_of,
    zlib_zeros,
)

URL = "https://docs.example.com/page"
LIMIT = 100_000
TEXT = b"".join(b"line %d of a page that compresses well enough\n" % i for i in range(4000))


async def chunks_of(body: bytes, sizes: Sequence[int] = (16 * 1024,)) -> AsyncIterator[bytes]:
    """``body`` in reads of the given sizes, the last size repeated."""
    start, index = 0, 0
    while start < len(body):
        size = sizes[min(index, len(sizes) - 1)]
        yield body[start : start + size]
        start, index = start + size, index + 1


async def decode(
    body: bytes, encoding: str, limit: int = LIMIT, sizes: Sequence[int] = (16 * 1024,)
) -> bytes:
    decoder = BodyDecoder(encoding, url=URL, limit=limit)
    return await read_body(chunks_of(body, sizes), decoder)


@pytest.mark.parametrize(
    ("encoding", "body"),
    [
        ("", TEXT[:LIMIT]),
        ("identity", TEXT[:LIMIT]),
        ("gzip", gzip_of(TEXT[:LIMIT])),
        ("deflate", zlib_of(TEXT[:LIMIT])),
        ("deflate", raw_deflate_of(TEXT[:LIMIT])),
        ("gzip, gzip", gzip_of(gzip_of(TEXT[:LIMIT]))),
    ],
)
async def test_a_body_of_exactly_the_limit_is_read_and_one_byte_more_is_too_large(
    encoding: str, body: bytes
) -> None:
    assert await decode(body, encoding) == TEXT[:LIMIT]
    with pytest.raises(PageTooLargeError) as refused:
        await decode(body, encoding, limit=LIMIT - 1)
    assert refused.value.limit == LIMIT - 1 and refused.value.field == "url"
    assert f"{URL} is larger than {LIMIT - 1} bytes" in refused.value.message


async def test_a_bomb_stops_one_byte_past_the_limit_holding_about_the_limit() -> None:
    bomb = gzip_of(gzip_zeros(1024))  # 1 GiB of zeros in about 2.5 KB
    decoder = BodyDecoder("gzip, gzip", url=URL, limit=MIB)
    tracemalloc.start()
    try:
        with pytest.raises(PageTooLargeError) as refused:
            await read_body(chunks_of(bomb), decoder)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (
        decoder.produced == MIB + 1 and refused.value.message == f"{URL} is larger than {MIB} bytes"
    )
    # The parts held, a step of output per layer, and zlib's own state.
    assert peak <= MIB + 4 * STEP + 256 * 1024, peak


async def test_every_layer_and_the_wire_are_held_to_the_limit() -> None:
    # Empty gzip members inflate to nothing: only the inner layer or the wire can grow.
    empty = gzip_of(b"")
    inner = gzip_of(empty * (LIMIT // len(empty) + 1))
    with pytest.raises(PageTooLargeError) as inner_refused:
        await decode(inner, "gzip, gzip")
    wire = empty * (LIMIT // len(empty) + 1)
    with pytest.raises(PageTooLargeError) as wire_refused:
        await decode(wire, "gzip")
    assert inner_refused.value.message.endswith("once its gzip coding is undone")
    assert wire_refused.value.message.endswith("as sent")
    assert len(inner) < LIMIT // 100 and await decode(empty * 100, "gzip") == b""


@pytest.mark.parametrize(
    ("encoding", "body"),
    [
        ("gzip", gzip_of(TEXT[:1000]) + gzip_of(b"") + gzip_of(TEXT[1000:2000])),
        ("gzip", gzip_of(TEXT[:2000]) + bytes(100)),
        ("gzip", b""),
        ("deflate", zlib_of(TEXT[:2000]) + b"ignored after the stream"),
        ("deflate, gzip", gzip_of(zlib_of(TEXT[:2000]))),
        ("gzip, deflate", zlib_of(gzip_of(TEXT[:2000]))),
        ("x-gzip, identity", gzip_of(TEXT[:2000])),
    ],
)
async def test_members_padding_and_stacked_codings(encoding: str, body: bytes) -> None:
    expected = TEXT[:2000] if body else b""
    assert await decode(body, encoding) == expected
    assert await decode(body, encoding, sizes=(1,)) == expected


@settings(max_examples=40, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 3000), min_size=1, max_size=8),
    raw=st.booleans(),
    stacked=st.booleans(),
)
def test_how_the_body_is_split_into_reads_does_not_matter(
    sizes: list[int], raw: bool, stacked: bool
) -> None:
    text = TEXT[:20_000]
    inner = raw_deflate_of(text) if raw else zlib_of(text)
    body, encoding = (gzip_of(inner), "deflate, gzip") if stacked else (inner, "deflate")
    assert asyncio.run(decode(body, encoding, sizes=sizes)) == text


@pytest.mark.parametrize(
    ("encoding", "body", "detail"),
    [
        ("gzip", gzip_of(TEXT[:2000])[:-4], "its gzip body ends before its stream does"),
        ("gzip", gzip_of(TEXT[:2000]) + gzip_of(b"x")[:5], "its gzip body ends before"),
        ("gzip", gzip_of(TEXT[:2000]) + b"junk", "its gzip body is corrupt"),
        ("deflate", zlib_of(TEXT[:2000])[:-1], "its deflate body ends before"),
        ("deflate", b"\x78", "its deflate body ends before"),
        ("deflate", b"\x78\x9c\xff\xff\xff\xff", "its deflate body is corrupt"),
        ("gzip, gzip", gzip_of(b"plain text, not gzip"), "its gzip body is corrupt"),
    ],
)
async def test_a_body_that_does_not_decode_is_a_fetch_error(
    encoding: str, body: bytes, detail: str
) -> None:
    with pytest.raises(FetchError) as failed:
        await decode(body, encoding)
    assert failed.value.message.startswith(f"{URL} does not decode: ")
    assert detail in failed.value.message and not failed.value.transient


def test_codings_are_named_in_the_order_applied_and_checked() -> None:
    assert codings_of("", URL) == ()
    assert codings_of(" identity ", URL) == ()
    assert codings_of("deflate, X-GZIP", URL) == ("deflate", "gzip")
    with pytest.raises(UnsupportedEncodingError) as unknown:
        codings_of("gzip, br", URL)
    with pytest.raises(UnsupportedEncodingError) as stacked:
        codings_of("gzip, gzip, deflate", URL)
    assert (
        unknown.value.encoding == "br"
        and "a crawl decodes gzip and deflate" in unknown.value.message
    )
    assert stacked.value.encoding == "gzip, gzip, deflate"
    assert "at most 2 stacked codings" in stacked.value.message


def test_an_inflater_is_never_asked_for_unbounded_output() -> None:
    # zlib reads a max_length of 0 as "no limit".
    inflater = Inflater("gzip", URL)
    inflater.feed(gzip_of(b"abc"))
    with pytest.raises(ValueError, match="at least 1"):
        inflater.read(0)
    assert inflater.read(1) == b"a" and inflater.produced == 1


class Turns:
    """Counts the turns a task of its own gets on the event loop while the block runs."""

    def __init__(self) -> None:
        self.count = 0

    async def _tick(self) -> None:
        while True:
            self.count += 1
            await asyncio.sleep(0)

    async def __aenter__(self) -> Turns:
        self._task = asyncio.create_task(self._tick())
        return self

    async def __aexit__(self, *_: object) -> None:
        self._task.cancel()


async def test_the_event_loop_runs_while_a_large_body_decodes() -> None:
    async with Turns() as turns:
        # One raw read that decodes to many steps.
        body = await decode(zlib_of(zlib_zeros(4)), "deflate, deflate", limit=4 * MIB)
    assert len(body) == 4 * MIB and turns.count >= 4 * MIB // STEP - 1


async def test_empty_inner_members_by_the_thousand_never_hold_the_loop_in_one_step() -> None:
    # The outer layer inflates to megabytes of empty gzip members, the inner to nothing.
    body = gzip_of(gzip_of(b"") * (4 * MIB // len(gzip_of(b"")) + 1))
    async with Turns() as turns:
        with pytest.raises(PageTooLargeError):
            await decode(body, "gzip, gzip", limit=4 * MIB)
    # One step of the outer layer at a time, the loop's turn between each.
    assert turns.count >= 4 * MIB // STEP - 1


@pytest.mark.parametrize("size", [STEP + 1, STEP + 8, 2 * STEP + 10])
async def test_a_raw_deflate_stream_ending_in_a_long_run_past_a_step_decodes_whole(
    size: int,
) -> None:
    # zlib uses up such a stream's input while a step's limit still holds output back.
    text = b"\x07\x5a\xc3" + b"x" * (size - 3)
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    raw = packer.compress(text) + packer.flush()
    assert await decode(raw, "deflate", limit=size) == text
    assert await decode(raw, "deflate", sizes=(7,), limit=size) == text

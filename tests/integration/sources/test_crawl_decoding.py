"""Content-Encoding through the safe fetcher against a site on loopback: encoded pages read
as the plain page, bodies that do not decode and encodings not decoded fail with typed
errors, and compression bombs (pages and robots.txt) stop at the size limit with the
process's peak memory bounded by it."""

from __future__ import annotations

import pytest

from kenning.domain.sources.crawl import (
    FetchedPage,
    FetchError,
    PageTooLargeError,
    Skipped,
    UnsupportedEncodingError,
)
from kenning.storage.sources.crawl import SafeFetcher
from kenning.storage.sources.crawl.robots import ROBOTS_MAX_BYTES
from tests.support.compression_bombs import (
    MIB,
    deflated_zeros,
    gzip_of,
    gzip_zeros,
    raw_deflate_of,
    zlib_of,
    zlib_zeros,
)
from tests.support.loopback_site import ROBOTS, Encoded, default_pages, serving_site
from tests.support.peak_memory import PeakMemory

LIMIT = 2 * MIB
PLAIN = default_pages()["/guide"].encode()
HALF = len(PLAIN) // 2


def fetcher(max_bytes: int = LIMIT) -> SafeFetcher:
    return SafeFetcher(allow_private=True, min_interval=0, max_bytes=max_bytes)


def essence(page: FetchedPage) -> tuple[object, ...]:
    """What a crawl keeps of a page, its URL aside."""
    return (page.title, page.text, page.content_hash, page.outlinks, len(page.links))


ENCODED = {
    "identity": ("identity", PLAIN),
    "gzip": ("gzip", gzip_of(PLAIN)),
    "x-gzip": ("x-gzip", gzip_of(PLAIN)),
    "case": ("GZip", gzip_of(PLAIN)),
    "zlib": ("deflate", zlib_of(PLAIN)),
    "raw-deflate": ("deflate", raw_deflate_of(PLAIN)),
    "stacked": ("deflate, gzip", gzip_of(zlib_of(PLAIN))),
    "with-identity": ("gzip, identity", gzip_of(PLAIN)),
    "two-members": ("gzip", gzip_of(PLAIN[:HALF]) + gzip_of(PLAIN[HALF:])),
    "nul-padding": ("gzip", gzip_of(PLAIN) + bytes(512)),
}


@pytest.mark.parametrize("name", list(ENCODED))
async def test_an_encoded_page_reads_as_the_plain_page(name: str) -> None:
    encoding, body = ENCODED[name]
    async with serving_site() as site, fetcher() as plain_fetcher, fetcher() as encoded_fetcher:
        site.encoded["/encoded"] = Encoded(body, encoding)
        plain = await plain_fetcher.fetch(site.base + "/guide")
        encoded = await encoded_fetcher.fetch(site.base + "/encoded")
    assert isinstance(plain, FetchedPage) and isinstance(encoded, FetchedPage)
    assert essence(encoded) == essence(plain) and plain.title == "Guide"
    # Only what is decoded is offered.
    assert dict(site.requests)["/encoded"]["accept-encoding"] == "gzip, deflate"


BROKEN = {
    "truncated": ("gzip", gzip_of(PLAIN)[:-12], "gzip body ends before its stream does"),
    "corrupt": (
        "gzip",
        gzip_of(PLAIN)[:40] + bytes(40) + gzip_of(PLAIN)[80:],
        "gzip body is corrupt",
    ),
    "trailing-garbage": ("gzip", gzip_of(PLAIN) + b"<html>trailing</html>", "gzip body is corrupt"),
    "truncated-zlib": ("deflate", zlib_of(PLAIN)[:-30], "deflate body ends before its stream does"),
    "truncated-inner": ("deflate, gzip", gzip_of(zlib_of(PLAIN)[:-30]), "deflate body ends before"),
    "not-gzip": ("gzip", b"not gzip at all", "gzip body is corrupt"),
}


@pytest.mark.parametrize("name", list(BROKEN))
async def test_a_body_that_does_not_decode_fails_with_a_typed_error(name: str) -> None:
    encoding, body, detail = BROKEN[name]
    async with serving_site() as site, fetcher() as safe:
        site.encoded["/broken"] = Encoded(body, encoding)
        with pytest.raises(FetchError) as failed:
            await safe.fetch(site.base + "/broken")
    assert detail in failed.value.message and site.base + "/broken" in failed.value.message
    assert not failed.value.transient and failed.value.field == "url"


@pytest.mark.parametrize(
    ("encoding", "named"),
    [
        ("br", "br"),
        ("zstd", "zstd"),
        ("compress", "compress"),
        ("gzip, br", "br"),
        ("gzip, gzip, gzip", "gzip, gzip, gzip"),
    ],
)
async def test_an_encoding_not_decoded_is_refused_before_the_body_is_read(
    encoding: str, named: str
) -> None:
    async with serving_site() as site, fetcher() as safe:
        site.encoded["/odd"] = Encoded(b"\x8b\x00" * 2048, encoding)
        with pytest.raises(UnsupportedEncodingError) as refused:
            await safe.fetch(site.base + "/odd")
    assert refused.value.encoding == named and refused.value.field == "url"
    assert named in refused.value.message and refused.value.code.value == "INVALID"


BOMBS = {
    "gzip-gzip-256MiB": ("gzip, gzip", gzip_of(gzip_zeros(256))),
    "deflate-deflate-256MiB": ("deflate, deflate", zlib_of(zlib_zeros(256))),
    "deflate-gzip-256MiB": ("deflate, gzip", gzip_of(zlib_zeros(256))),
    "raw-deflate-7MiB": ("deflate", deflated_zeros(7)),
    "gzip-7MiB": ("gzip", gzip_zeros(7)),
}


@pytest.mark.parametrize("name", list(BOMBS))
async def test_a_compression_bomb_stops_at_the_limit_in_bounded_memory(name: str) -> None:
    encoding, body = BOMBS[name]
    assert len(body) <= 8 * 1024
    peak = PeakMemory()
    async with serving_site() as site, fetcher() as safe:
        site.encoded["/bomb"] = Encoded(body, encoding)
        await safe.fetch(site.base + "/")  # connections, robots.txt and parsing warmed up
        peak.reset()
        with pytest.raises(PageTooLargeError) as refused:
            await safe.fetch(site.base + "/bomb")
        rise = peak.rise()
    assert refused.value.limit == LIMIT and refused.value.code.value == "TOO_LARGE"
    assert rise <= 2 * LIMIT, f"peak memory rose {rise / MIB:.1f} MiB"


async def test_a_gzip_robots_txt_is_obeyed() -> None:
    async with serving_site() as site, fetcher() as safe:
        site.encoded["/robots.txt"] = Encoded(gzip_of(ROBOTS.encode()), "gzip", "text/plain")
        skipped = await safe.fetch(site.base + "/private/notes")
        page = await safe.fetch(site.base + "/guide")
    assert skipped == Skipped(site.base + "/private/notes", "ROBOTS")
    assert isinstance(page, FetchedPage) and "/private/notes" not in site.paths()


async def test_a_robots_txt_bomb_stops_at_its_limit_in_bounded_memory() -> None:
    bomb = gzip_of(gzip_zeros(256))
    peak = PeakMemory()
    async with serving_site() as warm, fetcher() as safe:
        await safe.fetch(warm.base + "/")
    async with serving_site() as site, fetcher() as safe:
        site.encoded["/robots.txt"] = Encoded(bomb, "gzip, gzip", "text/plain")
        peak.reset()
        # A robots.txt over its cap is one that cannot be read: crawl nothing there.
        first = await safe.fetch(site.base + "/guide")
        rise = peak.rise()
        second = await safe.fetch(site.base + "/other")
    assert first == Skipped(site.base + "/guide", "ROBOTS")
    assert second == Skipped(site.base + "/other", "ROBOTS")
    assert site.paths() == ["/robots.txt"]  # read once, for every page of the origin
    assert rise <= 2 * ROBOTS_MAX_BYTES, f"peak memory rose {rise / MIB:.1f} MiB"

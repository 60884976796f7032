"""HTML files that would cost gigabytes (or hours) to extract: each is refused TOO_LARGE by
its elements and attributes, or its bytes, before it is parsed, with the process's peak
memory rising a few times the file at most; the same through ``ingestFile`` and the app's
own worker, with nothing stored. A long realistic HTML file is still extracted whole."""

from __future__ import annotations

import time
from collections.abc import Callable

import asyncpg
import pytest

from kenning.domain.sources.files import ExtractedFile, FileLimits, FileTooLargeError, OcrMode
from kenning.domain.sources.files import extract_file as extracted_by
from kenning.settings import Settings
from kenning.storage.sources.files import LibraryFileParser
from tests.support import file_samples as samples
from tests.support import html_pages
from tests.support.compression_bombs import MIB
from tests.support.file_uploads import Uploads, running_uploads
from tests.support.graph_rows import graph_edges, graph_vertices
from tests.support.peak_memory import PeakMemory

pytestmark = pytest.mark.integration

NODES = "the HTML has more than 250000 HTML elements and attributes"
# Each took 0.2 to 1.8 GB, or minutes, to extract before the bound (see html_pages).
BOMBS: dict[str, Callable[[], str]] = {
    "a million <li>x": lambda: html_pages.tiny_elements(1_000_000),
    "200,000 distinct links": lambda: html_pages.distinct_links(200_000),
    "1.1 million attributes": lambda: html_pages.dense_attributes(100_000),
    "elements behind a script": lambda: html_pages.hidden_in_a_script(300_000),
}


async def extract(data: bytes) -> ExtractedFile:
    return await extracted_by(
        data, filename="page.html", ocr=OcrMode.NEVER, limits=FileLimits(),
        parser=LibraryFileParser(), describer=None,
    )  # fmt: skip


@pytest.mark.parametrize("name", list(BOMBS))
async def test_an_html_file_of_too_many_nodes_is_refused_before_it_is_parsed(name: str) -> None:
    page = BOMBS[name]().encode()
    await extract(b"<html><body><p>warm</p></body></html>")  # the parsers loaded
    peak = PeakMemory()
    peak.reset()
    with pytest.raises(FileTooLargeError) as refused:
        await extract(page)
    rise = peak.rise()
    assert refused.value.message == NODES and refused.value.field == "file"
    # The bytes, their text and trafilatura's repaired copy of it: never the tree.
    assert rise <= 5 * len(page), f"peak memory rose {rise / MIB:.1f} MiB"


async def test_an_element_of_too_many_attributes_is_refused_at_once() -> None:
    page = html_pages.one_element_attributes(200_000).encode()  # parsing: over 5 minutes
    start = time.monotonic()
    with pytest.raises(FileTooLargeError, match="an element with more than 1000 attributes"):
        await extract(page)
    assert time.monotonic() - start < 5


async def test_html_over_its_byte_limit_is_refused_unread() -> None:
    page = ("<html><body>" + "<p>" + "words " * 1_000_000).encode()  # 6 MB, few nodes
    with pytest.raises(FileTooLargeError) as refused:
        await extract(page)
    assert refused.value.message == f"the HTML has {len(page)} bytes, over the limit of 5242880"


async def test_an_html_mail_body_is_held_to_the_same_bound() -> None:
    with pytest.raises(FileTooLargeError, match=NODES):
        await extract(samples.html_email(html_pages.tiny_elements(300_000)))


async def test_a_page_of_unclosed_titles_is_read_in_linear_time() -> None:
    page = ("<html><head>" + "<title>" * 40_000).encode()  # the title regex: 46 s
    start = time.monotonic()
    file = await extract(page)
    assert file.title is None and time.monotonic() - start < 5


async def test_a_long_realistic_html_file_is_extracted_whole() -> None:
    file = await extract(html_pages.long_article(1500).encode())  # 2.1 MB, 77,000 nodes
    assert file.title == "A long article"
    assert "Paragraph 4 of section 1499 describes" in file.text
    assert file.text.rstrip().endswith("The end of the article, after 1500 sections.")


async def test_an_uploaded_html_bomb_fails_its_job_with_nothing_stored(
    uploads: Uploads, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    page = html_pages.tiny_elements(1_000_000).encode()  # the re-probe's upload: 1.6 GB
    warm = await uploads.upload("warm.html", b"<html><body><p>warm up</p></body></html>")
    assert (await uploads.finished(warm["job"]["jobId"]))["status"] == "INDEXED"
    peak = PeakMemory()
    peak.reset()
    result = await uploads.upload("list.html", page)
    assert result["__typename"] == "IngestFileSuccess", result
    job = await uploads.finished(result["job"]["jobId"])
    rise = peak.rise()
    assert job == {"status": "FAILED", "lastError": f"INVALID: TOO_LARGE: {NODES}"}
    # The upload, its stored copy read back, its text and the repaired text: no tree.
    assert rise <= 8 * len(page), f"peak memory rose {rise / MIB:.1f} MiB"
    for table in ("chunks", "sources", "source_files"):
        stored = f"SELECT count(*) FROM {table} WHERE source_urn = 'file:list.html'"
        assert await pool.fetchval(stored) == 0, table
    graph = migrated_settings.graph_name
    vertices = [key for _, key in await graph_vertices(pool, graph)]
    assert vertices and not any("list.html" in key for key in vertices)
    assert not any("list.html" in str(edge) for edge in await graph_edges(pool, graph))


async def test_the_node_budget_is_the_servers_setting(
    pool: asyncpg.Pool, migrated_settings: Settings, clean: None
) -> None:
    settings = migrated_settings.model_copy(update={"max_html_nodes": 1_000})
    async with running_uploads(settings, pool) as uploads:
        result = await uploads.upload("list.html", html_pages.tiny_elements(1_001).encode())
        job = await uploads.finished(result["job"]["jobId"])
    assert job["lastError"] == (
        "INVALID: TOO_LARGE: the HTML has more than 1000 HTML elements and attributes"
    )

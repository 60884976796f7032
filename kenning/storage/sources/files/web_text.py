"""HTML (main content by trafilatura, as Markdown), Markdown and plain text.

HTML is parsed only within ``FileLimits.max_html_bytes`` and ``max_html_nodes`` (its
elements and attributes, counted on the text first: ``html_nodes``); over either the file
is refused ``FileTooLargeError`` before any tree exists.
"""

from __future__ import annotations

import re

import trafilatura
from trafilatura.utils import repair_faulty_html

from kenning.domain.sources.files.document import DocumentBuilder, markdown_sections
from kenning.domain.sources.files.errors import FileTooLargeError
from kenning.domain.sources.files.extracted import ExtractedFile, MediaType
from kenning.domain.sources.files.limits import check_html_bytes
from kenning.storage.sources.files.context import ReadContext
from kenning.storage.sources.files.detect import decode_text
from kenning.storage.sources.html_nodes import markup_excess

_TITLE_OPEN = re.compile(r"<title", re.IGNORECASE)
_TITLE_CLOSE = re.compile(r"</title>", re.IGNORECASE)


def read_html(data: bytes, context: ReadContext) -> ExtractedFile:
    """The page's main content (navigation and boilerplate removed) as Markdown."""
    check_html_bytes(len(data), context.limits)
    page = decode_text(data)
    # trafilatura parses the page as its load_html repairs it (control characters dropped,
    # which can join "<" to a name): the repaired text is the one whose nodes count.
    parsed = repair_faulty_html(page, page[:50].lower())
    excess = markup_excess(parsed, context.limits.max_html_nodes)
    if excess is not None:
        raise FileTooLargeError(f"the HTML has {excess}")
    text = trafilatura.extract(
        page, output_format="markdown", include_tables=True, include_links=False, favor_recall=True
    )
    if not text:  # trafilatura finds no main content in tiny pages: keep all their text
        text = _all_text(page)
    builder = DocumentBuilder()
    builder.markdown(text)
    return builder.build(MediaType.HTML, title=_title(page))


def read_markdown(data: bytes, context: ReadContext) -> ExtractedFile:
    """Markdown as written; its headings set the section path."""
    text = decode_text(data)
    builder = DocumentBuilder()
    builder.markdown(text)
    first = next((title for level, title, _ in _headings(text) if level == 1), None)
    return builder.build(MediaType.MARKDOWN, title=first)


def read_text(data: bytes, context: ReadContext) -> ExtractedFile:
    """Plain text, one part."""
    builder = DocumentBuilder()
    builder.block(decode_text(data).replace("\r\n", "\n"))
    return builder.build(MediaType.TEXT)


def _headings(text: str) -> list[tuple[int, str, str]]:
    return [section for section in markdown_sections(text) if section[0]]


def _title(page: str) -> str | None:
    """What ``<title[^>]*>(.*?)</title>`` finds, in one pass: the regex tries each "<title"
    in turn, to the end of the page each time when none is closed (280 KB of "<title>" took
    46 s). The first "<title" is enough: when it has no match, no later one has."""
    opened = _TITLE_OPEN.search(page)
    start = page.find(">", opened.end()) if opened is not None else -1
    closed = _TITLE_CLOSE.search(page, start + 1) if start >= 0 else None
    if closed is None:
        return None
    return re.sub(r"\s+", " ", page[start + 1 : closed.start()]).strip()


def _all_text(page: str) -> str:
    return str(trafilatura.html2txt(page) or "")

"""HTML (main content by trafilatura, as Markdown), Markdown and plain text."""

from __future__ import annotations

import re

import trafilatura

from kenning.domain.sources.files.document import DocumentBuilder, markdown_sections
from kenning.domain.sources.files.extracted import ExtractedFile, MediaType
from kenning.storage.sources.files.context import ReadContext
from kenning.storage.sources.files.detect import decode_text

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)


def read_html(data: bytes, context: ReadContext) -> ExtractedFile:
    """The page's main content (navigation and boilerplate removed) as Markdown."""
    page = decode_text(data)
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
    match = _TITLE.search(page)
    return re.sub(r"\s+", " ", match.group(1)).strip() if match else None


def _all_text(page: str) -> str:
    return str(trafilatura.html2txt(page) or "")

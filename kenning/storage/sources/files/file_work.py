"""``file_work``: the adapters files are checked, kept, read and extracted with, for the
composition root (``kenning.runtime``) to build once."""

from __future__ import annotations

import asyncpg

from kenning.domain.sources.files.file_runner import FileWork
from kenning.domain.sources.files.limits import FileLimits
from kenning.domain.sources.files.ports import ImageDescriber
from kenning.domain.sources.html_limits import MAX_HTML_NODES
from kenning.storage.sources.files.detect import detect
from kenning.storage.sources.files.file_store import PgFileStore
from kenning.storage.sources.files.parser import LibraryFileParser


def file_work(
    pool: asyncpg.Pool,
    *,
    max_file_bytes: int,
    max_chunks: int,
    max_html_nodes: int = MAX_HTML_NODES,
    describer: ImageDescriber | None = None,
) -> FileWork:
    """PostgreSQL large objects, the offline parsers with tesseract, type from content."""
    return FileWork(
        files=PgFileStore(pool),
        parser=LibraryFileParser(),
        detect=detect,
        describer=describer,
        limits=FileLimits(
            max_bytes=max_file_bytes, max_chunks=max_chunks, max_html_nodes=max_html_nodes
        ),
    )

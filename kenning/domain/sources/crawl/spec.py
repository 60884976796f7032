"""What a crawl is asked to do, checked: the start URL, its limits and its scope rules.

``include`` and ``exclude`` are glob patterns (``*`` matches anything, ``/`` included,
``?`` one character). A pattern that starts with ``/`` is matched against the URL's path
and query, any other against the whole normalised URL. A discovered URL is crawled when
it matches some ``include`` pattern (or there are none) and no ``exclude`` pattern; the
start URL is always crawled.

Example: ``crawl_spec("https://docs.example.com/", include=("/guide/*",), exclude=("*.zip",))``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from fnmatch import fnmatchcase
from urllib.parse import urlsplit

from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.sources.crawl.urls import normalise_url, same_site

MAX_DEPTH = 20
MAX_PAGES = 5_000
MAX_PATTERNS = 32
MAX_PATTERN_LENGTH = 256
DEFAULT_DEPTH = 2
DEFAULT_PAGES = 100


@dataclass(frozen=True, slots=True)
class CrawlSpec:
    """A checked crawl request; build it with ``crawl_spec``."""

    url: str
    max_depth: int = DEFAULT_DEPTH
    max_pages: int = DEFAULT_PAGES
    same_site: bool = True
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    # Pages fetched less than this long ago are not fetched again; None: always revalidate.
    recrawl_after: timedelta | None = None

    def allows(self, url: str, home: str | None = None) -> bool:
        """Whether the normalised ``url`` is in this crawl's scope; ``home`` is where the
        start URL led (after redirects, e.g. ``http`` to ``https``), the site's anchor."""
        if url == self.url:
            return True
        if self.same_site and not same_site(home or self.url, url):
            return False
        if self.include and not any(_matches(p, url) for p in self.include):
            return False
        return not any(_matches(p, url) for p in self.exclude)


def crawl_spec(
    url: str,
    *,
    max_depth: int = DEFAULT_DEPTH,
    max_pages: int = DEFAULT_PAGES,
    same_site: bool = True,
    include: tuple[str, ...] | list[str] = (),
    exclude: tuple[str, ...] | list[str] = (),
    recrawl_after: timedelta | None = None,
) -> CrawlSpec:
    """A ``CrawlSpec`` from raw input; ``ValidationError`` naming the first bad field."""
    start = normalise_url(url, field="url")
    if isinstance(max_depth, bool) or not 0 <= max_depth <= MAX_DEPTH:
        raise ValidationError(f"maxDepth must be 0..{MAX_DEPTH}", field="maxDepth")
    if isinstance(max_pages, bool) or max_pages < 1:
        raise ValidationError("maxPages must be at least 1", field="maxPages")
    if max_pages > MAX_PAGES:
        raise TooLargeError(f"maxPages must be at most {MAX_PAGES}", field="maxPages")
    if recrawl_after is not None and recrawl_after < timedelta(0):
        raise ValidationError("recrawlAfter must not be negative", field="recrawlAfter")
    return CrawlSpec(
        start,
        max_depth,
        max_pages,
        bool(same_site),
        _patterns(include, "include"),
        _patterns(exclude, "exclude"),
        recrawl_after,
    )


def _patterns(raw: tuple[str, ...] | list[str], name: str) -> tuple[str, ...]:
    if len(raw) > MAX_PATTERNS:
        raise TooLargeError(f"{name} takes at most {MAX_PATTERNS} patterns", field=name)
    patterns: list[str] = []
    for index, pattern in enumerate(raw):
        field = f"{name}[{index}]"
        text = pattern.strip() if isinstance(pattern, str) else ""
        if not text:
            raise ValidationError("a pattern must be a non-empty string", field=field)
        if len(text) > MAX_PATTERN_LENGTH:
            raise ValidationError(
                f"a pattern must be at most {MAX_PATTERN_LENGTH} characters", field=field
            )
        if any(c.isspace() or ord(c) < 32 for c in text):
            raise ValidationError("a pattern must not contain whitespace", field=field)
        patterns.append(text)
    return tuple(dict.fromkeys(patterns))


def _matches(pattern: str, url: str) -> bool:
    if pattern.startswith("/"):
        parts = urlsplit(url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        return fnmatchcase(target, pattern)
    return fnmatchcase(url, pattern)

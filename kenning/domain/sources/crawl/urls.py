"""Crawl URLs: normalisation (the identity a page is deduplicated by), links and sites.

Normalising keeps everything that may change what a server returns and drops only what
cannot: the fragment, a default port, the case of the scheme and host. The query is kept
as written (its order may matter to the server), and an empty path becomes ``/``.

Example: ``normalise_url("HTTP://Docs.Example.com:80/a?b=1#top") == "http://docs.example.com/a?b=1"``.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit, urlunsplit

from kenning.domain.errors import ValidationError

MAX_URL_LENGTH = 2_048
_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalise_url(raw: str, *, field: str = "url") -> str:
    """The absolute http(s) URL ``raw`` names, normalised; ``ValidationError`` otherwise."""
    text = raw.strip()
    if not text:
        raise ValidationError("a URL is required", field=field)
    if len(text) > MAX_URL_LENGTH:
        raise ValidationError(f"URL is longer than {MAX_URL_LENGTH} characters", field=field)
    if any(c.isspace() or ord(c) < 32 for c in text):
        raise ValidationError("URL must not contain whitespace or control characters", field=field)
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as error:
        raise ValidationError(f"URL {text[:80]!r} is malformed: {error}", field=field) from None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS:
        raise ValidationError("URL must start with http:// or https://", field=field)
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise ValidationError("URL needs a host", field=field)
    if parts.username is not None or parts.password is not None:
        raise ValidationError("URL must not carry a user name or password", field=field)
    shown = f"[{host}]" if ":" in host else host
    netloc = shown if port in (None, _DEFAULT_PORTS[scheme]) else f"{shown}:{port}"
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def resolve_link(base: str, href: str) -> str | None:
    """``href`` found on page ``base`` as a normalised URL; ``None`` when not crawlable."""
    target = href.strip()
    if not target or target.startswith(("#", "javascript:", "mailto:", "tel:", "data:")):
        return None
    try:
        return normalise_url(urljoin(base, target))
    except (ValidationError, ValueError):
        return None


def host_of(url: str) -> str:
    """The host of a normalised URL, without port: ``http://a.b:8/x`` → ``a.b``."""
    return urlsplit(url).hostname or ""


def origin_of(url: str) -> str:
    """Scheme and authority of a normalised URL: ``http://a.b:8/x`` → ``http://a.b:8``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def same_site(start: str, url: str) -> bool:
    """Whether ``url`` is on the start URL's host or one of its subdomains (any scheme/port).

    Without a public-suffix list "site" means the start host and what lies under it: a
    crawl of ``docs.example.com`` may visit ``api.docs.example.com``, not ``example.com``.
    """
    home, host = host_of(start), host_of(url)
    return host == home or host.endswith("." + home)

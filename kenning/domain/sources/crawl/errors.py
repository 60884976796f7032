"""The errors of a crawl, each a ``KenningError`` with a stable code and the field it names.

KenningError
├── ValidationError (INVALID)
│   ├── BlockedAddressError       the URL's host resolves to an address crawling may not reach
│   ├── UnsupportedPageError      the page is not HTML or plain text
│   ├── UnsupportedEncodingError  the page's Content-Encoding is not one a crawl decodes
│   └── TooLargeError (TOO_LARGE)
│       └── PageTooLargeError     the page is over the size limit
└── FetchError (INVALID)          the page could not be fetched (network, HTTP status), or
                                  its body does not decode (corrupt, truncated)

A crawl raises them for its start URL (the caller's input); any other page that fails is
counted and reported, and the crawl goes on.
"""

from __future__ import annotations

from kenning.domain.errors import KenningError, TooLargeError, ValidationError


class BlockedAddressError(ValidationError):
    """A host that is, or resolves to, a private, loopback, link-local or reserved address."""

    def __init__(self, message: str, *, address: str, field: str = "url") -> None:
        super().__init__(message, field=field)
        self.address = address


class UnsupportedPageError(ValidationError):
    """A page whose content type is neither HTML nor plain text."""

    def __init__(self, message: str, *, content_type: str, field: str = "url") -> None:
        super().__init__(message, field=field)
        self.content_type = content_type


class UnsupportedEncodingError(ValidationError):
    """A page whose ``Content-Encoding`` names a coding a crawl does not decode (``br``,
    ``zstd``, ``compress``, ...) or stacks more codings than it undoes; ``encoding`` says
    which."""

    def __init__(self, message: str, *, encoding: str, field: str = "url") -> None:
        super().__init__(message, field=field)
        self.encoding = encoding


class PageTooLargeError(TooLargeError):
    """A page over the crawl's byte limit, as sent or at any layer of its decoding (the
    download and the decoding stop at the limit)."""

    def __init__(self, message: str, *, limit: int, field: str = "url") -> None:
        super().__init__(message, field=field)
        self.limit = limit


class FetchError(KenningError):
    """A page that could not be fetched; ``status`` is the HTTP status when there was one.

    ``transient`` says whether trying again later may help (timeouts, 5xx, 429).
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        transient: bool = False,
        field: str = "url",
    ) -> None:
        super().__init__(message, field=field)
        self.status = status
        self.transient = transient

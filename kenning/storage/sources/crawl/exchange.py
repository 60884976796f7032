"""One HTTP exchange pinned to a checked address, its body streamed under a byte cap.

The body is read raw and decoded here (``content_decoding``), never by httpx, whose
decoding has no bound on its output; ``Accept-Encoding`` offers exactly what is decoded.

Pinning: the request goes to the address the policy checked (the URL's host replaced by
it), with the ``Host`` header and, for https, the TLS SNI and certificate check of the
original name (httpcore's ``sni_hostname`` extension). The name is therefore resolved once,
by the policy: a DNS answer that changes between check and connect (rebinding) cannot
redirect the connection. Proxies from the environment are never used (``trust_env=False``),
since a proxy would connect on its own and bypass the check.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from kenning.domain.sources.crawl.errors import FetchError, UnsupportedPageError
from kenning.storage.sources.crawl.addresses import IPAddress
from kenning.storage.sources.crawl.content_decoding import (
    ACCEPT_ENCODING,
    BodyDecoder,
    page_too_large,
    read_body,
)

REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True, slots=True)
class RawResponse:
    """A response as received: the URL asked for, status, headers and (capped) body."""

    url: str
    status: int
    headers: httpx.Headers
    body: bytes = b""

    @property
    def media_type(self) -> str:
        return str(self.headers.get("content-type", "")).split(";", 1)[0].strip().lower()


async def exchange(
    client: httpx.AsyncClient,
    url: str,
    address: IPAddress,
    headers: dict[str, str],
    *,
    max_bytes: int,
    accept: frozenset[str] | None,
) -> RawResponse:
    """GET ``url`` from ``address``; the body is read only for a 2xx answer.

    ``accept`` lists the media types a body may have (``UnsupportedPageError`` otherwise);
    a body over ``max_bytes`` as sent, or at any layer of its content decoding, raises
    ``PageTooLargeError``; a ``Content-Encoding`` not decoded, ``UnsupportedEncodingError``.
    """
    target = httpx.URL(url)
    pinned = target.copy_with(host=str(address))
    sent = {**headers, "Accept-Encoding": ACCEPT_ENCODING, "Host": target.netloc.decode("ascii")}
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    try:
        async with client.stream("GET", pinned, headers=sent, extensions=extensions) as reply:
            head = RawResponse(url, reply.status_code, reply.headers)
            if not 200 <= reply.status_code < 300:
                return head
            _check_head(head, max_bytes, accept)
            encoding = reply.headers.get("content-encoding", "")
            decoder = BodyDecoder(encoding, url=url, limit=max_bytes)
            body = await read_body(reply.aiter_raw(), decoder)
            return RawResponse(url, reply.status_code, reply.headers, body)
    except httpx.HTTPError as error:
        raise FetchError(f"fetching {url} failed: {error!r}", transient=True) from None


def _check_head(head: RawResponse, max_bytes: int, accept: frozenset[str] | None) -> None:
    if accept is not None and head.media_type not in accept:
        raise UnsupportedPageError(
            f"{head.url} is {head.media_type or 'of no content type'}; a crawl reads "
            f"{', '.join(sorted(accept))}",
            content_type=head.media_type,
        )
    declared = head.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise page_too_large(head.url, max_bytes, " as sent")

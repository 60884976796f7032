"""Which host a remote ``gitUrl`` may reach, checked before git connects, and pinned.

The URL's host is resolved once and every address it resolves to must pass the crawler's
address policy (loopback, private, link-local, … refused unless the server allows private
addresses); git is then told to connect to that checked address (``http.curloptResolve`` for
http(s), ssh's ``HostName`` for ssh) so a second lookup cannot rebind the name, and not to
follow redirects. ``file://`` URLs are not checked here: the repository roots govern them.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from kenning.domain.errors import ValidationError
from kenning.domain.sources.crawl.errors import BlockedAddressError
from kenning.storage.sources.crawl.addresses import AddressPolicy

log = logging.getLogger(__name__)

SyncResolver = Callable[[str, int], Sequence[str]]
_PORTS = {"http": 80, "https": 443, "ssh": 22}
UNREACHABLE = "could not reach the repository"


def system_resolver(host: str, port: int) -> Sequence[str]:
    """The addresses ``host`` resolves to (blocking: call it off the event loop)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]).split("%", 1)[0] for info in infos))


@dataclass(frozen=True)
class Pinned:
    """A remote URL's checked address: the git options and ssh address that pin it."""

    options: tuple[str, ...] = ()
    ssh_address: str | None = None


def pin_remote(
    url: str, *, allow_private: bool = False, resolver: SyncResolver = system_resolver
) -> Pinned:
    """``Pinned`` for ``url`` (nothing for ``file://``); ``ValidationError`` naming
    ``gitUrl`` when its host resolves to a refused address or does not resolve."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "file":
        return Pinned()
    host = parts.hostname or ""
    try:
        port = parts.port or _PORTS[scheme]
    except (KeyError, ValueError):
        raise ValidationError("gitUrl must be an http, https or ssh URL", field="gitUrl") from None
    address = _checked_address(host, port, allow_private, resolver)
    if scheme == "ssh":
        return Pinned(ssh_address=str(address))
    shown = f"[{address}]" if address.version == 6 else str(address)
    return Pinned(
        options=(
            "-c",
            f"http.curloptResolve={host}:{port}:{shown}",
            "-c",
            "http.followRedirects=false",
        )
    )


def _checked_address(
    host: str, port: int, allow_private: bool, resolver: SyncResolver
) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    policy = AddressPolicy(allow_private=allow_private)
    try:
        literal = ipaddress.ip_address(host.strip("[]"))
        found = [literal]
    except ValueError:
        try:
            found = [ipaddress.ip_address(a) for a in resolver(host, port)]
        except (OSError, UnicodeError, ValueError) as error:
            log.info("gitUrl host %r does not resolve: %s", host, error)
            raise ValidationError(UNREACHABLE, field="gitUrl") from None
    if not found:
        raise ValidationError(UNREACHABLE, field="gitUrl")
    try:
        for address in found:
            policy.check(address, host)
    except BlockedAddressError as error:
        log.info("gitUrl refused: %s", error)
        raise ValidationError(
            "gitUrl's host is not a public address; repositories on private addresses are "
            "off (KENNING_REPOSITORY_ALLOW_PRIVATE)",
            field="gitUrl",
        ) from None
    return found[0]

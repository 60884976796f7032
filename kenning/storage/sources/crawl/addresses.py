"""Which addresses a crawl may connect to, and host resolution that checks them.

Refused unless allowed: private (RFC 1918, ULA), loopback, link-local (cloud metadata at
169.254.169.254 among them), multicast, reserved, unspecified, CGNAT (100.64.0.0/10) and any
other non-global address, with the special-purpose ranges ``is_global`` misses (192.0.0.0/24,
site-local fec0::/10). An IPv6 address that embeds an IPv4 one (IPv4-mapped
``::ffff:a.b.c.d``, 6to4, Teredo, NAT64 ``64:ff9b::/96``) is judged by the embedded address
too. Every address a name resolves to must pass: a name with one private address among
public ones is refused, so which address the connection uses cannot matter.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Sequence

from kenning.domain.sources.crawl.errors import BlockedAddressError, FetchError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# Special-purpose ranges Python's ``is_global`` lets through: IETF protocol assignments
# (192.0.0.0/24, e.g. 192.0.0.8) and the deprecated IPv6 site-local fec0::/10.
_SPECIAL = (ipaddress.ip_network("192.0.0.0/24"), ipaddress.ip_network("fec0::/10"))


def refusal(address: IPAddress) -> str | None:
    """Why a crawl may not reach ``address`` (``"loopback"``, …); ``None`` when it may."""
    for embedded in _embedded(address):
        why = refusal(embedded)
        if why is not None:
            return f"{why} (embedded in {address})"
    checks = (
        (address.is_loopback, "loopback"),
        (address.is_link_local, "link-local"),
        (address.is_multicast, "multicast"),
        (address.is_unspecified, "unspecified"),
        (address.version == 4 and address in _CGNAT, "shared (CGNAT)"),
        (any(address.version == n.version and address in n for n in _SPECIAL), "special-purpose"),
        (address.is_private, "private"),
        (address.is_reserved, "reserved"),
        (not address.is_global, "non-global"),
    )
    return next((why for failed, why in checks if failed), None)


def _embedded(address: IPAddress) -> list[IPAddress]:
    if address.version == 4:
        return []
    assert isinstance(address, ipaddress.IPv6Address)
    found: list[IPAddress] = [a for a in (address.ipv4_mapped, address.sixtofour) if a is not None]
    if address.teredo is not None:
        found.append(address.teredo[1])
    if address in _NAT64:
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return found


async def system_resolver(host: str, port: int) -> Sequence[str]:
    """The addresses ``host`` resolves to, through the system resolver, off the loop."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class AddressPolicy:
    """Resolves a host once and returns the address to connect to, or refuses it."""

    def __init__(
        self,
        *,
        allow_private: bool = False,
        allowed_networks: Sequence[str] = (),
        resolver: Resolver = system_resolver,
    ) -> None:
        self._allow_private = allow_private
        self._allowed = tuple(ipaddress.ip_network(n, strict=False) for n in allowed_networks)
        self._resolve = resolver

    def check(self, address: IPAddress, host: str) -> None:
        """Raise ``BlockedAddressError`` when ``address`` (of ``host``) is refused."""
        if self._allow_private or any(address in net for net in self._allowed):
            return
        why = refusal(address)
        if why is not None:
            raise BlockedAddressError(
                f"{host} resolves to {address}, a {why} address; crawling private "
                "addresses is off (KENNING_CRAWL_ALLOW_PRIVATE)",
                address=str(address),
            )

    async def address_of(self, host: str, port: int) -> IPAddress:
        """The checked address to connect to for ``host``: every resolved one must pass."""
        literal = _literal(host)
        if literal is not None:
            self.check(literal, host)
            return literal
        try:
            found = [
                ipaddress.ip_address(a.split("%", 1)[0]) for a in await self._resolve(host, port)
            ]
        except (OSError, UnicodeError, ValueError) as error:
            raise FetchError(f"cannot resolve {host}: {error}", transient=True) from None
        if not found:
            raise FetchError(f"{host} resolves to no address", transient=True)
        for address in found:
            self.check(address, host)
        return found[0]


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None

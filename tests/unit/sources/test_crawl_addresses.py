"""Which addresses a crawl may reach: each refused class named, public ones allowed."""

from __future__ import annotations

import ipaddress

import pytest

from kenning.storage.sources.crawl.addresses import refusal


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "loopback"), ("::1", "loopback"), ("169.254.169.254", "link-local"),
        ("10.1.2.3", "private"), ("fd00::1", "private"), ("100.64.0.1", "shared (CGNAT)"),
        ("224.0.0.1", "multicast"), ("0.0.0.0", "unspecified"),
        ("192.0.0.8", "special-purpose"), ("fec0::1", "special-purpose"),
        ("::ffff:127.0.0.1", "loopback (embedded in ::ffff:7f00:1)"),
        ("64:ff9b::a01:203", "private (embedded in 64:ff9b::a01:203)"),
    ],
)  # fmt: skip
def test_a_non_public_address_is_refused_with_its_class(address: str, why: str) -> None:
    assert refusal(ipaddress.ip_address(address)) == why


@pytest.mark.parametrize("address", ["8.8.8.8", "93.184.215.14", "2606:4700::1111"])
def test_a_public_address_passes(address: str) -> None:
    assert refusal(ipaddress.ip_address(address)) is None

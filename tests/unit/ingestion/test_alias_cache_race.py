"""The alias cache never keeps an answer read before a registration that dropped the key."""

from __future__ import annotations

import asyncio
from typing import Any

from kenning.storage.ingestion.alias_registry import PgAliasRegistry


class _SlowTable:
    """Stands in for the pool: ``fetch`` answers from ``rows`` once ``release`` is set,
    as a SELECT whose snapshot predates a concurrent commit would."""

    def __init__(self) -> None:
        self.rows: list[dict[str, str]] = []
        self.release = asyncio.Event()
        self.fetches = 0

    async def fetch(self, _sql: str, *_args: Any) -> list[dict[str, str]]:
        self.fetches += 1
        answer = list(self.rows)  # read now: the alias is not there yet
        await self.release.wait()
        return answer

    async def execute(self, _sql: str, *_args: Any) -> str:
        return "UPDATE 0"


async def test_a_lookup_overlapping_a_registration_is_not_cached() -> None:
    table = _SlowTable()
    registry = PgAliasRegistry(table, ttl=60.0)  # type: ignore[arg-type]
    lookup = asyncio.create_task(registry.resolve("acme", {"org:a"}))
    await asyncio.sleep(0)  # the lookup has read the table
    table.rows = [{"alias_key": "org:a", "canonical_key": "org:canon"}]
    registry.forget("acme", {"org:a"})  # the registration committed and dropped the key
    table.release.set()
    assert await lookup == {}  # what it read before the commit
    assert await registry.resolve("acme", {"org:a"}) == {"org:a": "org:canon"}
    assert table.fetches == 2


async def test_a_lookup_with_no_registration_meanwhile_is_cached() -> None:
    table = _SlowTable()
    table.release.set()
    registry = PgAliasRegistry(table, ttl=60.0)  # type: ignore[arg-type]
    assert await registry.resolve("acme", {"org:a"}) == {}
    assert await registry.resolve("acme", {"org:a"}) == {}
    assert table.fetches == 1

"""``PgAliasRegistry``: aliases in PostgreSQL behind a per-process cache with per-key locks."""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Collection

import asyncpg

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.aliases import Alias
from kenning.domain.ingestion.ports import WriteUnit
from kenning.storage.ingestion.alias_guard import lock_alias_keys
from kenning.storage.ingestion.knowledge_store import PgWriteUnit

_Key = tuple[str, str]
_MAX_CACHED = 100_000


class PgAliasRegistry:
    """Resolves and stores aliases; implements ``AliasResolver`` and ``AliasBook``.

    A resolution is cached for ``ttl`` seconds. Misses are looked up under a lock per key,
    so concurrent ingests of one key make one query and agree on its answer; registering
    an alias takes the same locks and refreshes the cache in this process (other processes
    see it within ``ttl``).
    """

    def __init__(self, pool: asyncpg.Pool, *, ttl: float = 5.0) -> None:
        self._pool = pool
        self._ttl = ttl
        self._cache: dict[_Key, tuple[float, str | None]] = {}
        # Counts ``forget`` calls: a lookup that read the table before a registration
        # committed must not cache its answer after the registration dropped the key.
        self._forgotten = 0
        # Keys ``put`` re-pointed, by client: forgotten again by the caller's ``forget``
        # after commit, as a lookup between ``put`` and the commit cached the old target.
        self._repointed: dict[str, set[str]] = {}
        # Weak values: a key's lock lives only while someone holds or awaits it.
        self._locks: weakref.WeakValueDictionary[_Key, asyncio.Lock] = weakref.WeakValueDictionary()

    async def resolve(self, client_id: str, keys: Collection[str]) -> dict[str, str]:
        if not client_id or not keys:
            return {}
        now = time.monotonic()
        result: dict[str, str] = {}
        missing: list[str] = []
        for key in keys:
            cached = self._cache.get((client_id, key))
            if cached is not None and cached[0] > now:
                if cached[1] is not None:
                    result[key] = cached[1]
            else:
                missing.append(key)
        if missing:
            result.update(await self._load(client_id, sorted(missing)))
        if result:
            await self._pool.execute(
                """UPDATE aliases SET seen_count = seen_count + 1, last_seen_at = now()
                   WHERE client_id = $1 AND alias_key = ANY($2::text[])""",
                client_id,
                sorted(result),
            )
        return result

    async def _load(self, client_id: str, keys: list[str]) -> dict[str, str]:
        locks = [self._lock((client_id, key)) for key in keys]
        for lock in locks:  # sorted keys, so no two resolvers wait on each other in a cycle
            await lock.acquire()
        try:
            forgotten = self._forgotten
            rows = await self._pool.fetch(
                """SELECT alias_key, canonical_key FROM aliases
                   WHERE client_id = $1 AND alias_key = ANY($2::text[])""",
                client_id,
                keys,
            )
            found = {r["alias_key"]: r["canonical_key"] for r in rows}
            if self._forgotten != forgotten:  # possibly read before an alias committed
                return found
            now = time.monotonic()
            if len(self._cache) > _MAX_CACHED:
                self._cache = {k: v for k, v in self._cache.items() if v[0] > now}
            expires = now + self._ttl
            for key in keys:
                self._cache[(client_id, key)] = (expires, found.get(key))
            return found
        finally:
            for lock in locks:
                lock.release()

    def _lock(self, key: _Key) -> asyncio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[key] = lock
        return lock

    async def canonical_of(self, client_id: str, key: str) -> str | None:
        value = await self._pool.fetchval(
            "SELECT canonical_key FROM aliases WHERE client_id = $1 AND alias_key = $2",
            client_id,
            key,
        )
        return None if value is None else str(value)

    async def put(
        self, unit: WriteUnit, client_id: str, alias_key: str, canonical_key: str, area: str
    ) -> Alias:
        assert isinstance(unit, PgWriteUnit)
        conn = unit.connection
        await lock_alias_keys(conn, client_id, (alias_key, canonical_key))
        # The caller flattened the target before this unit; a registration of the target
        # that committed while the locks were awaited has made it an alias since.
        moved = await conn.fetchval(
            "SELECT canonical_key FROM aliases WHERE client_id = $1 AND alias_key = $2",
            client_id,
            canonical_key,
        )
        if moved == alias_key:
            raise ValidationError("an alias cannot resolve to itself", field="alias")
        if moved is not None:
            canonical_key = str(moved)
            await lock_alias_keys(conn, client_id, (canonical_key,))
        row = await conn.fetchrow(
            """INSERT INTO aliases (client_id, alias_key, canonical_key, area)
               VALUES ($1, $2, $3, $4)
               ON CONFLICT (client_id, alias_key) DO UPDATE
               SET canonical_key = EXCLUDED.canonical_key, area = EXCLUDED.area
               RETURNING seen_count, last_seen_at""",
            client_id,
            alias_key,
            canonical_key,
            area,
        )
        assert row is not None
        # Flatten: whatever resolved to the alias now resolves to its target.
        repointed = await conn.fetch(
            """UPDATE aliases SET canonical_key = $3
               WHERE client_id = $1 AND canonical_key = $2 RETURNING alias_key""",
            client_id,
            alias_key,
            canonical_key,
        )
        moved_keys = {r["alias_key"] for r in repointed}
        self.forget(client_id, moved_keys)
        self._repointed.setdefault(client_id, set()).update(moved_keys)
        return Alias(
            client_id, alias_key, canonical_key, area, row["seen_count"], row["last_seen_at"]
        )

    def forget(self, client_id: str, keys: set[str]) -> None:
        self._forgotten += 1
        for key in keys | self._repointed.pop(client_id, set()):
            self._cache.pop((client_id, key), None)

    async def list(self, client_id: str, limit: int = 1000) -> list[Alias]:
        """The client's aliases, most recently seen first."""
        rows = await self._pool.fetch(
            """SELECT alias_key, canonical_key, area, seen_count, last_seen_at FROM aliases
               WHERE client_id = $1 ORDER BY last_seen_at DESC, alias_key LIMIT $2""",
            client_id,
            limit,
        )
        return [
            Alias(
                client_id,
                r["alias_key"],
                r["canonical_key"],
                r["area"],
                r["seen_count"],
                r["last_seen_at"],
            )
            for r in rows
        ]

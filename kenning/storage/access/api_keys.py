"""API keys in PostgreSQL (hash only) behind a short-lived per-process cache.

Implements the domain's ``KeyBook``. Revocations are published to every process
(``key_revocations``), so a revoked key stops working everywhere at once.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Collection, Coroutine
from typing import Any

import asyncpg
import redis.asyncio as aioredis

from kenning.domain.access.api_keys import ApiKeyInfo
from kenning.domain.access.principal import Principal, Role, key_hash, new_key
from kenning.domain.access.scope import Scope
from kenning.storage.access.key_revocations import RevocationFeed, Revoked, publish_revocation

__all__ = ["AUTH_CACHE_SECONDS", "ApiKeyInfo", "PgApiKeys"]

_MAX_CACHED = 10_000
# How long a process trusts an authentication it looked up; revocations heard over Redis
# cut it short.
AUTH_CACHE_SECONDS = 30.0
_MAX_REVOKED = 10_000

# Called with the id of a key revoked here or in another process.
RevocationListener = Callable[[str], Awaitable[None]]


class PgApiKeys:
    """Creates, revokes and authenticates API keys.

    Authentication results are cached for ``ttl`` seconds. With ``redis``, a revocation
    is published and heard by every process, which drop the key at once and tell their
    ``on_revoked`` listeners (the websockets of the key close); without it, or with
    Redis down, other processes refuse the key within ``ttl``.
    """

    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        redis: aioredis.Redis | None = None,
        ttl: float = AUTH_CACHE_SECONDS,
    ) -> None:
        self._pool = pool
        self._redis = redis
        self._ttl = ttl
        self._cache: dict[str, tuple[float, Principal | None]] = {}
        # Bumped by every revocation heard: a lookup that raced one is not cached.
        self._generation = 0
        self._revoked: OrderedDict[str, None] = OrderedDict()
        self._listeners: list[RevocationListener] = []
        self._gap_listeners: list[Callable[[], Coroutine[Any, Any, None]]] = []
        self._gap_tasks: set[asyncio.Task[None]] = set()
        self._feed = None if redis is None else RevocationFeed(redis, self._heard, self._gap, ttl)

    def on_revoked(self, listener: RevocationListener) -> None:
        """Call ``listener`` with the id of each key revoked from now on, anywhere."""
        self._listeners.append(listener)

    def on_gap(self, listener: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Call ``listener`` whenever revocations may have been missed (Redis was away)."""
        self._gap_listeners.append(listener)

    async def revoked_among(self, key_ids: Collection[str]) -> set[str]:
        """Which of ``key_ids`` are revoked, as PostgreSQL says now."""
        rows = await self._pool.fetch(
            "SELECT id FROM api_keys WHERE id = ANY($1::text[]) AND revoked_at IS NOT NULL",
            list(key_ids),
        )
        return {row["id"] for row in rows}

    def _gap(self) -> None:
        self.forget_all()
        for listener in self._gap_listeners:
            task = asyncio.get_running_loop().create_task(listener())
            self._gap_tasks.add(task)  # kept until done, so it is not collected mid-way
            task.add_done_callback(self._gap_tasks.discard)

    def is_revoked(self, key_id: str) -> bool:
        """True for a key this process has heard revoked (a recent one)."""
        return key_id in self._revoked

    def forget_all(self) -> None:
        """Drop every cached authentication (revocations may have been missed)."""
        self._generation += 1
        self._cache.clear()

    async def aclose(self) -> None:
        """Stop listening for revocations."""
        if self._feed is not None:
            await self._feed.aclose()

    async def _heard(self, revoked: Revoked) -> None:
        self._generation += 1
        self._cache.pop(revoked.digest, None)
        self._revoked[revoked.key_id] = None
        if len(self._revoked) > _MAX_REVOKED:
            self._revoked.popitem(last=False)
        for listener in list(self._listeners):
            await listener(revoked.key_id)

    async def create(self, scope: Scope, role: Role, label: str = "") -> tuple[str, ApiKeyInfo]:
        """A new key and its record; the key itself is shown once and never stored."""
        key = new_key()
        row = await self._pool.fetchrow(
            """INSERT INTO api_keys (id, key_hash, client_id, project_id, group_id, role, label)
               VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING created_at""",
            str(uuid.uuid4()),
            key_hash(key),
            scope.client_id,
            scope.project_id,
            scope.group_id,
            role.value,
            label,
        )
        assert row is not None
        info = await self.get_by_hash(key_hash(key))
        assert info is not None
        return key, info

    async def get(self, key_id: str) -> ApiKeyInfo | None:
        """A key's record by id."""
        row = await self._pool.fetchrow("SELECT * FROM api_keys WHERE id = $1", key_id)
        return None if row is None else _info(row)

    async def get_by_hash(self, digest: str) -> ApiKeyInfo | None:
        row = await self._pool.fetchrow("SELECT * FROM api_keys WHERE key_hash = $1", digest)
        return None if row is None else _info(row)

    async def authenticate(self, key: str) -> Principal | None:
        """The principal of a valid, unrevoked key, else ``None``."""
        if self._feed is not None:
            self._feed.ensure_started()
        digest = key_hash(key)
        now = time.monotonic()
        cached = self._cache.get(digest)
        if cached is not None and cached[0] > now:
            return cached[1]
        generation = self._generation
        row = await self._pool.fetchrow(
            "SELECT * FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL", digest
        )
        principal = None
        if row is not None:
            info = _info(row)
            principal = Principal(key_id=info.id, scope=info.scope, role=info.role)
        if generation != self._generation:
            return principal  # a revocation arrived meanwhile: do not keep what was read
        if len(self._cache) >= _MAX_CACHED:
            self._cache = {k: v for k, v in self._cache.items() if v[0] > now}
        self._cache[digest] = (now + self._ttl, principal)
        return principal

    async def revoke(self, key_id: str) -> ApiKeyInfo | None:
        """Revoke a key by id, in every process; ``None`` when there is no such key."""
        info, _ = await self.revoke_everywhere(key_id)
        return info

    async def revoke_everywhere(self, key_id: str) -> tuple[ApiKeyInfo | None, bool]:
        """``revoke``, and whether the other processes were told at once (Redis up)."""
        row = await self._pool.fetchrow(
            """UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
               WHERE id = $1 RETURNING *""",
            key_id,
        )
        if row is None:
            return None, False
        revoked = Revoked(row["id"], row["key_hash"])
        await self._heard(revoked)
        told = self._redis is not None and await publish_revocation(self._redis, revoked, self._ttl)
        return _info(row), told

    async def list(self, client_id: str | None = None) -> list[ApiKeyInfo]:
        """Keys of one client (all when ``None``), newest first."""
        rows = await self._pool.fetch(
            """SELECT * FROM api_keys WHERE $1::text IS NULL OR client_id = $1
               ORDER BY created_at DESC, id""",
            client_id,
        )
        return [_info(row) for row in rows]


def _info(row: asyncpg.Record) -> ApiKeyInfo:
    return ApiKeyInfo(
        id=row["id"],
        scope=Scope(row["client_id"], row["project_id"], row["group_id"]),
        role=Role(row["role"]),
        label=row["label"],
        created_at=row["created_at"],
        revoked_at=row["revoked_at"],
    )

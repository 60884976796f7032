"""API keys in PostgreSQL (hash only) behind a short-lived per-process cache.

Implements the domain's ``KeyBook``."""

from __future__ import annotations

import time
import uuid

import asyncpg

from kenning.domain.api_keys import ApiKeyInfo
from kenning.domain.principal import Principal, Role, key_hash, new_key
from kenning.domain.scope import Scope

__all__ = ["ApiKeyInfo", "PgApiKeys"]

_MAX_CACHED = 10_000


class PgApiKeys:
    """Creates, revokes and authenticates API keys.

    Authentication results are cached for ``ttl`` seconds, so a revocation takes effect at
    once in the revoking process and within ``ttl`` in the others.
    """

    def __init__(self, pool: asyncpg.Pool, *, ttl: float = 30.0) -> None:
        self._pool = pool
        self._ttl = ttl
        self._cache: dict[str, tuple[float, Principal | None]] = {}

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
        digest = key_hash(key)
        now = time.monotonic()
        cached = self._cache.get(digest)
        if cached is not None and cached[0] > now:
            return cached[1]
        row = await self._pool.fetchrow(
            "SELECT * FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL", digest
        )
        principal = None
        if row is not None:
            info = _info(row)
            principal = Principal(key_id=info.id, scope=info.scope, role=info.role)
        if len(self._cache) >= _MAX_CACHED:
            self._cache = {k: v for k, v in self._cache.items() if v[0] > now}
        self._cache[digest] = (now + self._ttl, principal)
        return principal

    async def revoke(self, key_id: str) -> ApiKeyInfo | None:
        """Revoke a key by id; ``None`` when there is no such key."""
        row = await self._pool.fetchrow(
            """UPDATE api_keys SET revoked_at = coalesce(revoked_at, now())
               WHERE id = $1 RETURNING *""",
            key_id,
        )
        if row is None:
            return None
        self._cache.pop(row["key_hash"], None)
        return _info(row)

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

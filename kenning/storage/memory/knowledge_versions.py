"""``PgKnowledgeVersions``: the versions of user-knowledge items (``knowledge_versions``).

Settling and forgetting hold the item's advisory lock for their transaction, so two writers
of one item take turns: each reads what the item's chunks hold at that moment and adds it as
the next version only when it differs from the current one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Final

import asyncpg

from kenning.domain.access.scope import Scope, stored_scope
from kenning.domain.memory.knowledge_versions import (
    KnowledgeItemRef,
    KnowledgeVersion,
    Settled,
)
from kenning.domain.memory.user_knowledge import KnowledgeCategory
from kenning.storage.db.pool import Connection
from kenning.storage.db.visibility import reader_params, visible_rows

_COLUMNS: Final = (
    "seq, client_id, project_id, group_id, source_urn, category, user_key, version, subject, "
    "content, agent_id, created_by, created_at, superseded_at, deleted_at"
)
_ITEM: Final = "client_id = $1 AND project_id = $2 AND group_id = $3 AND source_urn = $4"
_HELD: Final = f"""
    SELECT string_agg(content, E'\\n\\n' ORDER BY ordinal) AS content,
           min(metadata->>'subject') AS subject, min(metadata->>'agentId') AS agent_id
    FROM chunks WHERE {_ITEM}"""
_CURRENT: Final = (
    f"SELECT {_COLUMNS} FROM knowledge_versions WHERE {_ITEM} AND superseded_at IS NULL"
)
# clock_timestamp, not now(): the transaction may have waited for the lock, and a version
# must never be older than the one it supersedes.
_SUPERSEDE: Final = f"""
    UPDATE knowledge_versions SET superseded_at = clock_timestamp()
    WHERE {_ITEM} AND superseded_at IS NULL RETURNING {_COLUMNS}"""
_INSERT: Final = f"""
    INSERT INTO knowledge_versions (client_id, project_id, group_id, source_urn, category,
        user_key, version, subject, content, agent_id, created_by, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, coalesce($12, clock_timestamp()))
    RETURNING {_COLUMNS}"""
_FORGET: Final = f"""
    UPDATE knowledge_versions SET deleted_at = clock_timestamp()
    WHERE {_ITEM} AND superseded_at IS NULL AND deleted_at IS NULL RETURNING {_COLUMNS}"""


def history_sql() -> str:
    """Reader scope in ``$1..$3``, the source in ``$4``, the seq to stay below in ``$5``,
    the limit in ``$6``."""
    return f"""SELECT {_COLUMNS} FROM knowledge_versions
        WHERE source_urn = $4 AND {visible_rows(1)} AND ($5::bigint IS NULL OR seq < $5)
        ORDER BY seq DESC LIMIT $6"""


_HISTORY: Final = history_sql()


def _version(row: Any) -> KnowledgeVersion:
    item = KnowledgeItemRef(
        scope=stored_scope(row["client_id"], row["project_id"], row["group_id"]),
        source_urn=row["source_urn"],
        category=KnowledgeCategory(row["category"]),
        user_key=row["user_key"] or None,
    )
    return KnowledgeVersion(
        seq=row["seq"],
        item=item,
        version=row["version"],
        subject=row["subject"],
        content=row["content"],
        agent_id=row["agent_id"],
        created_by=row["created_by"],
        created_at=row["created_at"],
        superseded_at=row["superseded_at"],
        deleted_at=row["deleted_at"],
    )


def _holds(current: Any, content: str) -> bool:
    """Whether the current version is in force and already holds ``content``."""
    return current["deleted_at"] is None and current["content"] == content


def _where(item: KnowledgeItemRef) -> tuple[str, str, str, str]:
    s = item.scope
    return s.client_id, s.project_id, s.group_id, item.source_urn


class PgKnowledgeVersions:
    """Implements the domain's ``KnowledgeVersionStore`` over one pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    @asynccontextmanager
    async def _locked(self, item: KnowledgeItemRef) -> AsyncIterator[Connection]:
        async with self._pool.acquire() as conn, conn.transaction():
            # No part holds a control character (scopes are checked, URNs are digests).
            name = "\x1f".join(("knowledge_versions", *_where(item)))
            await conn.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", name)
            yield conn

    async def settle(self, item: KnowledgeItemRef, created_by: str) -> Settled:
        where = _where(item)
        async with self._locked(item) as conn:
            held = await conn.fetchrow(_HELD, *where)
            if held is None or held["content"] is None:
                return Settled()
            current = await conn.fetchrow(_CURRENT, *where)
            if current is not None and _holds(current, held["content"]):
                return Settled()
            prior = await conn.fetchrow(_SUPERSEDE, *where)
            row = await conn.fetchrow(
                _INSERT,
                *where,
                item.category.value,
                item.user_key or "",
                1 if prior is None else prior["version"] + 1,
                (held["subject"] or "")[:200] or item.source_urn[:200],
                held["content"],
                held["agent_id"],
                created_by,
                None if prior is None else prior["superseded_at"],
            )
        return Settled(None if prior is None else _version(prior), _version(row))

    async def forget(self, item: KnowledgeItemRef) -> KnowledgeVersion | None:
        async with self._locked(item) as conn:
            row = await conn.fetchrow(_FORGET, *_where(item))
        return None if row is None else _version(row)

    async def history(
        self, reader: Scope, source_urn: str, first: int, before: int | None
    ) -> list[KnowledgeVersion]:
        rows = await self._pool.fetch(_HISTORY, *reader_params(reader), source_urn, before, first)
        return [_version(row) for row in rows]

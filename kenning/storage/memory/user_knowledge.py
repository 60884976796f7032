"""``PgUserKnowledge``: the user context read as one statement over the chunks of the six
``user_knowledge_*`` kinds the reader may see (no vector, no full-text search).

A document's chunks are joined in order (by a blank line: chunking splits at blank lines);
where the reader sees one subject at several scopes the row nearest the reader wins (its own
project, its group, its client, global, then other projects it may see, by id); then each
category keeps its most recently updated items. Items of a user (``metadata.userKey``) other
than the one asked for are never read; with no user asked for, only shared items are.
"""

from __future__ import annotations

from typing import Final

import asyncpg

from kenning.domain.access.scope import Scope, stored_scope
from kenning.domain.memory.user_knowledge import (
    USER_KNOWLEDGE_KINDS,
    KnowledgeItem,
    category_of,
)
from kenning.storage.db.visibility import reader_params, visible_rows

# The reader's own project, its group, its client, global, then other projects it sees.
_NEAREST_FIRST: Final = """CASE WHEN project_id <> '' AND project_id = $2 THEN 0
    WHEN project_id = '' AND group_id <> '' THEN 1 WHEN project_id = '' AND client_id <> '' THEN 2
    WHEN client_id = '' THEN 3 ELSE 4 END"""


def user_context_sql() -> str:
    """The statement: reader scope in ``$1..$3``, kinds in ``$4``, items per kind in ``$5``,
    the user in ``$6`` (NULL: shared items only)."""
    return f"""
        WITH visible AS (
            SELECT c.kind, c.source_urn, c.client_id, c.project_id, c.group_id,
                   string_agg(c.content, E'\\n\\n' ORDER BY c.ordinal) AS content,
                   coalesce(min(c.metadata->>'subject'), c.source_urn) AS subject,
                   max(c.updated_at) AS updated_at,
                   min(c.metadata->>'userKey') AS user_key, min(c.metadata->>'agentId') AS agent_id
            FROM chunks c
            WHERE c.kind = ANY($4::text[]) AND {visible_rows(1, "c")}
              AND (c.metadata->>'userKey' IS NULL OR c.metadata->>'userKey' = $6::text)
            GROUP BY c.kind, c.source_urn, c.client_id, c.project_id, c.group_id
        ), narrowest AS (
            SELECT DISTINCT ON (kind, source_urn) *
            FROM visible
            ORDER BY kind, source_urn, {_NEAREST_FIRST}, project_id, group_id
        ), ranked AS (
            SELECT *, row_number() OVER (
                PARTITION BY kind ORDER BY updated_at DESC, source_urn
            ) AS position
            FROM narrowest
        )
        SELECT kind, client_id, project_id, group_id, subject, content, updated_at, user_key,
               agent_id
        FROM ranked WHERE position <= $5"""


_USER_CONTEXT: Final = user_context_sql()


def knowledge_item(row: asyncpg.Record) -> KnowledgeItem:
    """A ``KnowledgeItem`` from a row of ``user_context_sql``."""
    return KnowledgeItem(
        category=category_of(row["kind"]),
        subject=row["subject"],
        content=row["content"],
        updated_at=row["updated_at"],
        scope=stored_scope(row["client_id"], row["project_id"], row["group_id"]),
        user_key=row["user_key"],
        agent_id=row["agent_id"],
    )


class PgUserKnowledge:
    """Implements the domain's ``UserKnowledgeReader`` over one pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def visible_items(
        self, reader: Scope, per_category: int, user_key: str | None = None
    ) -> list[KnowledgeItem]:
        """Per category, the newest ``per_category`` items ``reader`` sees (shared, or
        ``user_key``'s), narrowest first."""
        rows = await self._pool.fetch(
            _USER_CONTEXT,
            *reader_params(reader),
            list(USER_KNOWLEDGE_KINDS),
            per_category,
            user_key,
        )
        return [knowledge_item(row) for row in rows]

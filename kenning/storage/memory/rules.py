"""``PgRuleStore``: hard rules in PostgreSQL, every statement under the table's own role.

The app may connect as a superuser, which row-level security never restricts, so each call
opens a transaction that switches to ``RULES_ROLE`` and names its client in
``CLIENT_SETTING``; the policy of migration 0009 then shows that client's rows only, whatever
the SQL says. Both settings are transaction-local: the pooled connection is clean after.
The SQL filters by client as well, so a query reads the same with or without the policy.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any, Final

import asyncpg

from kenning.domain.errors import TooLargeError
from kenning.domain.memory.rules import MAX_ACTIVE_RULES, HardRule, RuleDraft, RuleType
from kenning.storage.db.pool import Connection
from kenning.storage.db.rule_table import CLIENT_SETTING, RULES_ROLE

_COLUMNS: Final = (
    "client_id, project_id, rule_key, version, rule_type, content, description, created_by, "
    "created_at, superseded_at, deleted_at"
)
_KEY: Final = "client_id = $1 AND project_id = $2 AND rule_key = $3"
# One writer per rule key at a time: two stores of a key become versions n+1 and n+2.
_ENTER_LOCKED: Final = (
    "SELECT set_config('role', $1, true), set_config($2, $3, true), "
    "pg_advisory_xact_lock(hashtextextended($4, 0))"
)
_ENTER: Final = "SELECT set_config('role', $1, true), set_config($2, $3, true)"


def _rule(row: Any) -> HardRule:
    return HardRule(
        client_id=row["client_id"],
        project_id=row["project_id"],
        rule_key=row["rule_key"],
        version=row["version"],
        rule_type=RuleType(row["rule_type"]),
        content=row["content"],
        description=row["description"],
        created_by=row["created_by"],
        created_at=row["created_at"],
        superseded_at=row["superseded_at"],
        deleted_at=row["deleted_at"],
    )


def _lock_name(client_id: str, project_id: str, rule_key: str) -> str:
    # No part may hold a control character (scopes and rule keys are checked), so the unit
    # separator keeps ("a", "b c") and ("a b", "c") apart; text cannot hold NUL.
    return "\x1f".join(("hard_rules", client_id, project_id, rule_key))


async def _check_room(conn: Connection, client_id: str, project_id: str) -> None:
    # One new rule per scope at a time (after the key's own lock, always in that order), so
    # two new keys stored at once cannot both take the last place.
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
        "\x1f".join(("hard_rules_scope", client_id, project_id)),
    )
    active = await conn.fetchval(
        """SELECT count(*) FROM hard_rules WHERE client_id = $1 AND project_id = $2
           AND superseded_at IS NULL AND deleted_at IS NULL""",
        client_id,
        project_id,
    )
    if active >= MAX_ACTIVE_RULES:
        where = f"project {project_id!r}" if project_id else "the client"
        raise TooLargeError(
            f"at most {MAX_ACTIVE_RULES} rules may be in force for {where}; delete one first",
            field="ruleKey",
        )


class PgRuleStore:
    """Implements the domain's ``RuleStore``."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    @asynccontextmanager
    async def _as_client(
        self, client_id: str, lock: str | None = None
    ) -> AsyncIterator[Connection]:
        """A connection in a transaction under the rules role, for ``client_id`` only."""
        async with self._pool.acquire() as conn, conn.transaction():
            if lock is None:
                await conn.execute(_ENTER, RULES_ROLE, CLIENT_SETTING, client_id)
            else:
                await conn.execute(_ENTER_LOCKED, RULES_ROLE, CLIENT_SETTING, client_id, lock)
            yield conn

    async def store(self, draft: RuleDraft) -> HardRule:
        where = (draft.client_id, draft.project_id, draft.rule_key)
        async with self._as_client(draft.client_id, _lock_name(*where)) as conn:
            # clock_timestamp, not now(): the transaction may have waited for the lock, and
            # a version must never be older than the one it supersedes.
            prior = await conn.fetchrow(
                f"""UPDATE hard_rules SET superseded_at = clock_timestamp()
                    WHERE {_KEY} AND superseded_at IS NULL
                    RETURNING version, superseded_at, deleted_at""",
                *where,
            )
            if prior is None or prior["deleted_at"] is not None:  # a rule newly in force
                await _check_room(conn, draft.client_id, draft.project_id)
            row = await conn.fetchrow(
                f"""INSERT INTO hard_rules (id, client_id, project_id, rule_key, version,
                        rule_type, content, description, created_by, created_at)
                    VALUES ($4, $1, $2, $3, $5, $6, $7, $8, $9, coalesce($10, clock_timestamp()))
                    RETURNING {_COLUMNS}""",
                *where,
                str(uuid.uuid4()),
                1 if prior is None else prior["version"] + 1,
                draft.rule_type.value,
                draft.content,
                draft.description,
                draft.created_by,
                None if prior is None else prior["superseded_at"],
            )
        return _rule(row)

    async def delete(self, client_id: str, project_id: str, rule_key: str) -> HardRule | None:
        where = (client_id, project_id, rule_key)
        async with self._as_client(client_id, _lock_name(*where)) as conn:
            row = await conn.fetchrow(
                f"""UPDATE hard_rules SET deleted_at = clock_timestamp()
                    WHERE {_KEY} AND superseded_at IS NULL AND deleted_at IS NULL
                    RETURNING {_COLUMNS}""",
                *where,
            )
        return _rule(row) if row is not None else None

    async def active(self, client_id: str, project_ids: Iterable[str]) -> list[HardRule]:
        async with self._as_client(client_id) as conn:
            rows = await conn.fetch(
                f"""SELECT {_COLUMNS} FROM hard_rules
                    WHERE client_id = $1 AND project_id = ANY($2::text[])
                      AND superseded_at IS NULL AND deleted_at IS NULL
                    ORDER BY rule_key, project_id""",
                client_id,
                list(project_ids),
            )
        return [_rule(r) for r in rows]

    async def history(
        self, client_id: str, project_id: str, rule_key: str, first: int, before: int | None
    ) -> list[HardRule]:
        async with self._as_client(client_id) as conn:
            rows = await conn.fetch(
                f"""SELECT {_COLUMNS} FROM hard_rules
                    WHERE {_KEY} AND ($4::int IS NULL OR version < $4)
                    ORDER BY version DESC LIMIT $5""",
                client_id,
                project_id,
                rule_key,
                before,
                first,
            )
        return [_rule(r) for r in rows]

"""An in-memory ``RuleStore`` for unit tests of hard rules, and principals to call it as."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime, timedelta

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import ProjectGroups, Scope
from kenning.domain.memory.rules import HardRule, RuleDraft

_START = datetime(2026, 1, 1, tzinfo=UTC)


def caller(client: str, project: str = "", group: str = "", role: Role = Role.AGENT) -> Principal:
    """A key of one client (and project, group) with ``role``."""
    scope = Scope(client, project, group)
    return Principal(key_id=f"{client}-{project}-{role.value}", scope=scope, role=role)


class FakeRuleStore:
    """Versions in a list; a tick of the clock per write, so timestamps order the writes."""

    def __init__(self) -> None:
        self.rows: list[HardRule] = []
        self._clock = _START

    def _tick(self) -> datetime:
        self._clock += timedelta(seconds=1)
        return self._clock

    def _current(self, client_id: str, project_id: str, rule_key: str) -> int | None:
        for i, row in enumerate(self.rows):
            key = (row.client_id, row.project_id, row.rule_key)
            if key == (client_id, project_id, rule_key) and row.superseded_at is None:
                return i
        return None

    async def store(self, draft: RuleDraft) -> HardRule:
        now = self._tick()
        at = self._current(draft.client_id, draft.project_id, draft.rule_key)
        version = 1
        if at is not None:
            version = self.rows[at].version + 1
            self.rows[at] = replace(self.rows[at], superseded_at=now)
        rule = HardRule(
            draft.client_id, draft.project_id, draft.rule_key, version, draft.rule_type,
            draft.content, draft.description, draft.created_by, now, None, None,
        )  # fmt: skip
        self.rows.append(rule)
        return rule

    async def delete(self, client_id: str, project_id: str, rule_key: str) -> HardRule | None:
        at = self._current(client_id, project_id, rule_key)
        if at is None or self.rows[at].deleted_at is not None:
            return None
        self.rows[at] = replace(self.rows[at], deleted_at=self._tick())
        return self.rows[at]

    async def active(self, client_id: str, project_ids: Iterable[str]) -> list[HardRule]:
        projects = set(project_ids)
        return [
            r
            for r in self.rows
            if r.client_id == client_id
            and r.project_id in projects
            and r.superseded_at is None
            and r.deleted_at is None
        ]

    async def history(
        self, client_id: str, project_id: str, rule_key: str, first: int, before: int | None
    ) -> list[HardRule]:
        found = [
            r
            for r in self.rows
            if (r.client_id, r.project_id, r.rule_key) == (client_id, project_id, rule_key)
            and (before is None or r.version < before)
        ]
        return sorted(found, key=lambda r: -r.version)[:first]


class RecordedGroups:
    """A ``ProjectGroupStore`` that knows fixed project groups and records nothing."""

    def __init__(self, groups: dict[tuple[str, str], str] | None = None) -> None:
        self.groups = ProjectGroups(groups or {})

    async def of_client(self, client_id: str) -> ProjectGroups:
        return self.groups

    async def settle(self, target: Scope, writer: Scope) -> Scope:
        return target

    async def move(self, client_id: str, project_id: str, group_id: str) -> str:
        raise AssertionError("hard rules never move projects")

"""Hard rules: a client's mandatory rules, versioned, read whole and never by similarity.

A rule is stored client-wide (``project_id`` ``""``) or for one project; storing its key
again creates the next version and supersedes the current one; deleting marks the current
version deleted. The active rules of a project are the client-wide ones with the project's
laid over them: a project rule replaces the client rule of the same key. Hard rules are not
soft memory: they are neither embedded nor searched, and no other memory mixes with them.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Protocol

from kenning.domain.access.principal import Principal
from kenning.domain.access.project_groups import ProjectGroupStore
from kenning.domain.access.scope import Scope
from kenning.domain.errors import NotFoundError, ScopeError, ValidationError
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy, apply_policy

MAX_KEY = 200
MAX_CONTENT = 10_000
MAX_DESCRIPTION = 2_000
# A page of a rule's history: a version may hold 12,000 characters, and a rule may have
# hundreds of versions.
HISTORY_PAGE = 20
MAX_HISTORY_PAGE = 50
# Rules in force per client-wide or project scope: every one is loaded whole into an agent's
# context and every rules read, so their number is bounded like their size.
MAX_ACTIVE_RULES = 200
_CURSOR = "rule-version:"


class RuleType(StrEnum):
    """What a rule governs."""

    ROUTING = "ROUTING"
    NOTIFICATION = "NOTIFICATION"
    VALIDATION = "VALIDATION"
    PROCESSING = "PROCESSING"
    SECURITY = "SECURITY"
    CUSTOM = "CUSTOM"


@dataclass(frozen=True, slots=True)
class RuleDraft:
    """A rule version to store: where, what, and which API key wrote it."""

    client_id: str
    project_id: str
    rule_key: str
    rule_type: RuleType
    content: str
    description: str
    created_by: str


@dataclass(frozen=True, slots=True)
class HardRule:
    """One stored version of a rule."""

    client_id: str
    project_id: str
    rule_key: str
    version: int
    rule_type: RuleType
    content: str
    description: str
    created_by: str
    created_at: datetime
    superseded_at: datetime | None
    deleted_at: datetime | None


class RuleStore(Protocol):
    """Where hard rules live (``kenning.storage.memory.rules``); every call names its client."""

    async def store(self, draft: RuleDraft) -> HardRule:
        """Insert the key's next version and supersede its current one, atomically;
        ``TooLargeError`` when a new key would put the scope over ``MAX_ACTIVE_RULES``."""
        ...

    async def delete(self, client_id: str, project_id: str, rule_key: str) -> HardRule | None:
        """Mark the key's current version deleted; None when it has no active version."""
        ...

    async def active(self, client_id: str, project_ids: Iterable[str]) -> list[HardRule]:
        """The current, undeleted versions of the client's rules in these projects
        (``""``: client-wide)."""
        ...

    async def history(
        self, client_id: str, project_id: str, rule_key: str, first: int, before: int | None
    ) -> list[HardRule]:
        """Up to ``first`` versions of one key older than version ``before`` (all when
        None), newest first."""
        ...


@dataclass(frozen=True, slots=True)
class RuleHistoryPage:
    """Versions of one rule, newest first, and the cursor after the last one."""

    rules: tuple[HardRule, ...]
    end_cursor: str | None
    has_next_page: bool


def history_cursor(version: int) -> str:
    """An opaque cursor after ``version`` in a rule's history."""
    return base64.urlsafe_b64encode(f"{_CURSOR}{version}".encode()).decode().rstrip("=")


def history_position(cursor: str) -> int:
    """The version a cursor of ``history_cursor`` names; ``ValidationError`` otherwise."""
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        version = int(text.removeprefix(_CURSOR)) if text.startswith(_CURSOR) else 0
    except (ValueError, binascii.Error, UnicodeDecodeError):
        version = 0
    if not 1 <= version < 2**31:  # versions are PostgreSQL integers
        raise ValidationError("after is not a cursor of this rule's history", field="after")
    return version


def check_rule_key(rule_key: str) -> str:
    """``rule_key`` when it is 1..200 printable characters with no edge whitespace."""
    if (
        not rule_key
        or len(rule_key) > MAX_KEY
        or rule_key != rule_key.strip()
        or not rule_key.isprintable()
    ):
        raise ValidationError(
            f"ruleKey must be 1..{MAX_KEY} printable characters, no leading or trailing spaces",
            field="ruleKey",
        )
    return rule_key


def _check_text(value: str, field: str, least: int, most: int) -> None:
    if not least <= len(value.strip()) or len(value) > most:
        raise ValidationError(f"{field} must be {least}..{most} characters", field=field)
    try:
        apply_policy(value, SecretPolicy.REJECT)
    except SensitiveContentError as error:
        error.field = field
        raise


def rule_scope(base: Scope, project_id: str | None) -> Scope:
    """Where a rule call acts: ``base``'s client, and ``project_id`` (when given) or
    ``base``'s project. Rules belong to a client, so a scope without one is refused."""
    if not base.client_id:
        raise ValidationError(
            "hard rules belong to a client: name one with scope.clientId", field="scope"
        )
    project = base.project_id if project_id is None else project_id
    if project == base.project_id and not base.group_id:
        return base  # also the keyless reader's scope, which a new Scope would refuse
    return Scope(base.client_id, project)


def effective_rules(found: Iterable[HardRule], project_id: str) -> list[HardRule]:
    """The client-wide rules with ``project_id``'s laid over them by key, sorted by key."""
    chosen: dict[str, HardRule] = {}
    for rule in found:
        if rule.project_id not in ("", project_id):
            continue
        held = chosen.get(rule.rule_key)
        if held is None or (rule.project_id and not held.project_id):
            chosen[rule.rule_key] = rule
    return [chosen[key] for key in sorted(chosen)]


async def store_rule(
    caller: Principal,
    target: Scope,
    rule_key: str,
    rule_type: RuleType,
    texts: tuple[str, str],
    store: RuleStore,
) -> HardRule:
    """Store the next version of a rule at ``target`` (agents and admins owning it);
    ``texts`` is the rule's content and its description."""
    content, description = texts
    check_rule_key(rule_key)
    _check_text(content, "content", 1, MAX_CONTENT)
    _check_text(description, "description", 0, MAX_DESCRIPTION)
    caller.writing(target)
    draft = RuleDraft(
        target.client_id,
        target.project_id,
        rule_key,
        rule_type,
        content,
        description,
        caller.key_id,
    )
    return await store.store(draft)


async def delete_rule(
    caller: Principal, target: Scope, rule_key: str, store: RuleStore
) -> HardRule:
    """Soft-delete a rule's current version; its history stays."""
    check_rule_key(rule_key)
    caller.writing(target)
    deleted = await store.delete(target.client_id, target.project_id, rule_key)
    if deleted is None:
        raise NotFoundError(f"no active rule {rule_key!r}", field="ruleKey")
    return deleted


async def _check_visible(reader: Scope, target: Scope, groups: ProjectGroupStore) -> None:
    if target.project_id and not reader.can_see(target, await groups.of_client(target.client_id)):
        raise ScopeError(
            f"project {target.project_id!r} is outside this key's scope", field="projectId"
        )


async def active_rules(
    reader: Scope, target: Scope, store: RuleStore, groups: ProjectGroupStore
) -> list[HardRule]:
    """The rules in force at ``target``: client-wide, overridden by the project's."""
    await _check_visible(reader, target, groups)
    projects = {"", target.project_id}
    found = await store.active(target.client_id, sorted(projects))
    return effective_rules(found, target.project_id)


async def rule_history(
    reader: Scope,
    target: Scope,
    rule_key: str,
    store: RuleStore,
    groups: ProjectGroupStore,
    *,
    first: int = HISTORY_PAGE,
    after: str | None = None,
) -> RuleHistoryPage:
    """One page of a rule's versions at ``target``, newest first, deleted ones included."""
    check_rule_key(rule_key)
    if not 1 <= first <= MAX_HISTORY_PAGE:
        raise ValidationError(f"first must be 1..{MAX_HISTORY_PAGE}", field="first")
    before = history_position(after) if after is not None else None
    await _check_visible(reader, target, groups)
    found = await store.history(target.client_id, target.project_id, rule_key, first + 1, before)
    page = tuple(found[:first])
    end = history_cursor(page[-1].version) if page else None
    return RuleHistoryPage(page, end, len(found) > first)

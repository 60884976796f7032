"""Hard rules' requests, as GraphQL and MCP make them: store a rule's next version
(``storeRule``, ``store_rule``), delete it (``deleteRule``, ``delete_rule``), read the rules
in force (``rules``, ``get_rules``, the ``kenning://rules`` resource) and a rule's versions
(``ruleHistory``). Each places the rule first (``rule_scope``: the caller's scope, with a
project named or not), then runs the rules of ``rules``."""

from __future__ import annotations

from dataclasses import dataclass

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.memory import rules
from kenning.domain.memory.rules import HISTORY_PAGE, HardRule, RuleHistoryPage, RuleStore


@dataclass(frozen=True, slots=True)
class RuleRequest:
    """A rule's next version: its key, type, content and description, client-wide
    (``project_id`` "") or for a project (None: the key's own)."""

    rule_key: str
    rule_type: rules.RuleType
    content: str
    description: str = ""
    project_id: str | None = None
    scope: Scope | None = None


@dataclass(frozen=True, slots=True)
class RuleRef:
    """One rule by key, to delete or read a page of the versions of."""

    rule_key: str
    project_id: str | None = None
    scope: Scope | None = None
    first: int = HISTORY_PAGE
    after: str | None = None


@dataclass(frozen=True, slots=True)
class RulesRead:
    """The rules in force for a project (None: the key's own)."""

    project_id: str | None = None
    scope: Scope | None = None


async def store_for(caller: CallerScope, request: RuleRequest, store: RuleStore) -> HardRule:
    """Store the next version of a rule, client-wide or for one project."""
    target = rules.rule_scope(caller.writing(request.scope), request.project_id)
    texts = (request.content, request.description)
    return await rules.store_rule(
        caller.principal, target, request.rule_key, request.rule_type, texts, store
    )


async def delete_for(caller: CallerScope, request: RuleRef, store: RuleStore) -> HardRule:
    """Soft-delete a rule's current version; its history stays."""
    target = rules.rule_scope(caller.writing(request.scope), request.project_id)
    return await rules.delete_rule(caller.principal, target, request.rule_key, store)


async def rules_in_force(
    caller: CallerScope, request: RulesRead, store: RuleStore
) -> list[HardRule]:
    """The caller's rules in force: client-wide, each overridden by the project's."""
    reader = caller.reading(request.scope)
    target = rules.rule_scope(reader, request.project_id)
    return await rules.active_rules(reader, target, store, caller.groups)


async def history_for(caller: CallerScope, request: RuleRef, store: RuleStore) -> RuleHistoryPage:
    """One page of a rule's versions, newest first, deleted ones included."""
    reader = caller.reading(request.scope)
    target = rules.rule_scope(reader, request.project_id)
    return await rules.rule_history(
        reader,
        target,
        request.rule_key,
        store,
        caller.groups,
        first=request.first,
        after=request.after,
    )

"""Resolvers of hard rules: store a version, delete, read the rules in force, read history.

Each turns its arguments into the request of its use case
(``kenning.domain.memory.rule_request``: ``store_for``, ``delete_for`` and
``rules_in_force``, which MCP's ``store_rule``, ``delete_rule`` and ``get_rules`` call too,
and ``history_for``) and its answer into GraphQL types.
"""

from __future__ import annotations

from kenning.domain.memory import rules
from kenning.domain.memory.rule_request import (
    RuleRef,
    RuleRequest,
    RulesRead,
    delete_for,
    history_for,
    rules_in_force,
    store_for,
)
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import NarrowScope, ScopeInput
from kenning.schema.memory import rules as gql


def to_rule_type(rule: rules.HardRule) -> gql.HardRule:
    """The GraphQL form of a rule version."""
    return gql.HardRule(
        rule_key=rule.rule_key,
        rule_type=rule.rule_type,
        content=rule.content,
        description=rule.description,
        client_id=rule.client_id,
        project_id=rule.project_id or None,
        version=rule.version,
        created_by=rule.created_by,
        created_at=rule.created_at,
        superseded_at=rule.superseded_at,
        deleted_at=rule.deleted_at,
    )


@error_members
async def resolve_store_rule(
    info: Info,
    rule_key: str,
    rule_type: rules.RuleType,
    content: str,
    description: str = "",
    project_id: str | None = None,
    scope: ScopeInput | None = None,
) -> gql.StoreRuleResult:
    """Store the next version of a rule, client-wide or for one project."""
    request = RuleRequest(rule_key, rule_type, content, description, project_id, to_scope(scope))
    stored = await store_for(caller(info), request, info.context.runtime.rules)
    return gql.StoreRuleSuccess(rule=to_rule_type(stored))


@error_members
async def resolve_delete_rule(
    info: Info, rule_key: str, project_id: str | None = None, scope: ScopeInput | None = None
) -> gql.DeleteRuleResult:
    """Soft-delete a rule's current version."""
    request = RuleRef(rule_key, project_id, to_scope(scope))
    deleted = await delete_for(caller(info), request, info.context.runtime.rules)
    return gql.DeleteRuleSuccess(rule=to_rule_type(deleted))


async def resolve_rules(
    info: Info, project_id: str | None = None, scope: NarrowScope = None
) -> list[gql.HardRule]:
    """The caller's rules in force: client-wide, each overridden by the project's of its key."""
    request = RulesRead(project_id, to_scope(scope))
    found = await rules_in_force(caller(info), request, info.context.runtime.rules)
    return [to_rule_type(r) for r in found]


async def resolve_rule_history(
    info: Info,
    rule_key: str,
    project_id: str | None = None,
    first: int = rules.HISTORY_PAGE,
    after: str | None = None,
    scope: NarrowScope = None,
) -> gql.RuleHistoryPage:
    """One page of a rule's versions, newest first, deleted ones included."""
    request = RuleRef(rule_key, project_id, to_scope(scope), first, after)
    page = await history_for(caller(info), request, info.context.runtime.rules)
    return gql.RuleHistoryPage(
        nodes=[to_rule_type(r) for r in page.rules],
        end_cursor=page.end_cursor,
        has_next_page=page.has_next_page,
    )

"""Resolvers of hard rules: store a version, delete, read the rules in force, read history."""

from __future__ import annotations

from kenning.domain.memory import rules
from kenning.resolvers.access.scope import principal, read_scope, write_scope
from kenning.resolvers.context import Info
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
    target = rules.rule_scope(write_scope(info, scope), project_id)
    stored = await rules.store_rule(
        principal(info),
        target,
        rule_key,
        rule_type,
        (content, description),
        info.context.runtime.rules,
    )
    return gql.StoreRuleSuccess(rule=to_rule_type(stored))


@error_members
async def resolve_delete_rule(
    info: Info, rule_key: str, project_id: str | None = None, scope: ScopeInput | None = None
) -> gql.DeleteRuleResult:
    """Soft-delete a rule's current version."""
    target = rules.rule_scope(write_scope(info, scope), project_id)
    deleted = await rules.delete_rule(principal(info), target, rule_key, info.context.runtime.rules)
    return gql.DeleteRuleSuccess(rule=to_rule_type(deleted))


async def resolve_rules(
    info: Info, project_id: str | None = None, scope: NarrowScope = None
) -> list[gql.HardRule]:
    """The caller's rules in force: client-wide, each overridden by the project's of its key."""
    reader = read_scope(info, scope)
    runtime = info.context.runtime
    found = await rules.active_rules(
        reader, rules.rule_scope(reader, project_id), runtime.rules, runtime.project_groups
    )
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
    reader = read_scope(info, scope)
    runtime = info.context.runtime
    target = rules.rule_scope(reader, project_id)
    page = await rules.rule_history(
        reader, target, rule_key, runtime.rules, runtime.project_groups, first=first, after=after
    )
    return gql.RuleHistoryPage(
        nodes=[to_rule_type(r) for r in page.rules],
        end_cursor=page.end_cursor,
        has_next_page=page.has_next_page,
    )

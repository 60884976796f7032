"""The ``store_rule`` and ``delete_rule`` tools: hard rules written as GraphQL's
``storeRule`` and ``deleteRule`` write them, through the same use cases (``store_for`` and
``delete_for`` of ``kenning.domain.memory.rule_request``; the resolvers are in
``kenning/resolvers/memory/rules.py``), for the same roles: keys that may write at the
rule's scope (agents and admins), never a read-only key.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from kenning.domain.memory import rules
from kenning.domain.memory.rule_request import RuleRef, RuleRequest, delete_for, store_for
from kenning.mcp.calls import NarrowScope, ToolContext, caller, domain_errors, plain
from kenning.mcp.memory_arguments import request_fields
from kenning.mcp.tool_spec import ToolSpec

RuleKey = Annotated[str, Field(description="The rule's stable key, e.g. 'no-secrets-in-tickets'.")]
RuleTypeArg = Annotated[rules.RuleType, Field(description="What kind of rule it is.")]
Content = Annotated[str, Field(description="The rule itself, an instruction to obey.")]
Description = Annotated[str, Field(description="Why the rule exists.")]
ProjectId = Annotated[
    str | None,
    Field(description="The project the rule is for (default: the key's; none: client-wide)."),
]


@domain_errors
async def store_rule_tool(
    ctx: ToolContext,
    rule_key: RuleKey,
    rule_type: RuleTypeArg,
    content: Content,
    description: Description = "",
    project_id: ProjectId = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Store the next version of a rule, client-wide or for one project."""
    request = RuleRequest(**request_fields(locals()))
    who = caller(ctx)
    return {"rule": plain(await store_for(who.scoped, request, who.runtime.rules))}


@domain_errors
async def delete_rule_tool(
    ctx: ToolContext,
    rule_key: RuleKey,
    project_id: ProjectId = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Soft-delete a rule's current version; its history stays."""
    request = RuleRef(**request_fields(locals()))
    who = caller(ctx)
    return {"rule": plain(await delete_for(who.scoped, request, who.runtime.rules))}


TOOLS = (
    ToolSpec(
        "store_rule",
        store_rule_tool,
        "Store a hard rule (routing, notification, validation, processing, security or "
        "custom) that every agent of the client, or of one project, must obey: get_rules "
        "and get_context return it before anything else. Storing the same rule_key again "
        "makes its next version; the earlier ones stay in its history.",
        read_only=False,
    ),
    ToolSpec(
        "delete_rule",
        delete_rule_tool,
        "Delete a hard rule: it is no longer in force (its versions stay in the history). "
        "Only for a rule the user asked to drop.",
        read_only=False,
        destructive=True,
    ),
)

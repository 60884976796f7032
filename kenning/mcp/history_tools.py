"""Tools that change and read memory's past: ``forget_knowledge`` and ``get_history``.

``get_history`` reads one item's versions by ``kind`` and the item's ``key`` (the key the
change log names it by): each kind is one entry of ``HISTORIES``, so a kind of the graph
(edges, nodes) is one reader more. Both tools call the use cases the GraphQL resolvers call
(``kenning/resolvers/memory/knowledge_history.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import Annotated, Any, Final

from pydantic import Field

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.memory.knowledge_versions import forget_knowledge, knowledge_history
from kenning.domain.memory.owners import owner_of
from kenning.domain.memory.pages import DEFAULT_PAGE
from kenning.domain.memory.user_knowledge import KnowledgeCategory
from kenning.mcp.auth import Caller
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    plain,
    read_scope,
    stored_write_scope,
)
from kenning.mcp.memory_arguments import Reason, UserKey
from kenning.mcp.tool_spec import ToolSpec


class HistoryKind(StrEnum):
    """What ``get_history`` reads the versions of."""

    KNOWLEDGE = "knowledge"


@domain_errors
async def forget_knowledge_tool(
    ctx: ToolContext,
    category: Annotated[KnowledgeCategory, Field(description="The item's category.")],
    subject: Annotated[str, Field(description="The item's subject, as it was stored.")],
    user_key: UserKey = None,
    reason: Reason = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Forget a fact about the user everywhere at once; its history keeps it."""
    who = caller(ctx)
    forgotten = await forget_knowledge(
        await stored_write_scope(who, scope),
        category,
        subject,
        owner_of(user_key, None),
        who.runtime.knowledge_deps(),
        who.principal.key_id,
        reason,
    )
    return {"forgotten": _version(forgotten)}


def _version(found: Any) -> dict[str, Any]:
    shown: dict[str, Any] = plain(found)
    item = shown.pop("item")
    return {
        **shown,
        "category": item["category"],
        "userKey": item["userKey"],
        "scope": item["scope"],
    }


def knowledge_key(key: str) -> tuple[KnowledgeCategory, str]:
    """``CATEGORY:subject`` (as the change log's itemKey) split; ``ValidationError`` on key."""
    category, _, subject = key.partition(":")
    try:
        return KnowledgeCategory(category.strip().upper()), subject
    except ValueError:
        names = ", ".join(KnowledgeCategory)
        raise ValidationError(
            f"key must be CATEGORY:subject with a category of {names}", field="key"
        ) from None


Reader = Callable[[Caller, Scope, str, str | None, int, str | None], Awaitable[dict[str, Any]]]


async def _knowledge(
    who: Caller, reader: Scope, key: str, user_key: str | None, first: int, after: str | None
) -> dict[str, Any]:
    category, subject = knowledge_key(key)
    page = await knowledge_history(
        reader,
        category,
        subject,
        owner_of(user_key, None),
        who.runtime.knowledge_versions,
        first=first,
        after=after,
    )
    return {
        "versions": [_version(v) for v in page.nodes],
        "endCursor": page.end_cursor,
        "hasNextPage": page.has_next_page,
    }


HISTORIES: Final[dict[HistoryKind, Reader]] = {HistoryKind.KNOWLEDGE: _knowledge}


@domain_errors
async def get_history_tool(
    ctx: ToolContext,
    key: Annotated[
        str,
        Field(description="The item: for knowledge CATEGORY:subject, e.g. 'PREFERENCE:editor'."),
    ],
    kind: Annotated[HistoryKind, Field(description="What kind of item.")] = (HistoryKind.KNOWLEDGE),
    user_key: UserKey = None,
    first: Annotated[int, Field(description="How many versions, 1..50.")] = DEFAULT_PAGE,
    after: Annotated[str | None, Field(description="endCursor of the previous page.")] = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """One page of an item's versions, newest first, forgotten ones included."""
    who = caller(ctx)
    found = await HISTORIES[kind](who, read_scope(who, scope), key, user_key, first, after)
    return {"kind": kind.value, **found}


TOOLS = (
    ToolSpec(
        "forget_knowledge",
        forget_knowledge_tool,
        "Forget a fact about the user (by category and subject) when it is wrong or the user "
        "asks: it leaves get_context and search at once. Give user_key as when it was stored "
        "and, if you can, a reason. Its old versions stay readable with get_history.",
        read_only=False,
    ),
    ToolSpec(
        "get_history",
        get_history_tool,
        "Read how an item changed over time, newest version first, forgotten ones included: "
        "kind 'knowledge' with key CATEGORY:subject (e.g. 'PREFERENCE:editor') and the "
        "user_key it belongs to.",
        read_only=True,
    ),
)

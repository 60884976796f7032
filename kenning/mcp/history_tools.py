"""Tools that change and read memory's past: ``forget_knowledge`` and ``get_history``.

``get_history`` reads one item's past by ``kind`` and the item's ``key`` (the key the change
log names it by): each kind is one entry of ``HISTORIES``. ``knowledge`` pages a user-
knowledge item's versions, ``node`` a node's property versions (``nodeHistory``), ``edge``
lists an edge's intervals (``edgeHistory``, whole and oldest first: ``from|edgeType|to``, or
``from|edgeType`` for every target). Both tools call the use cases the GraphQL resolvers
call (``kenning/resolvers/memory/``, ``kenning/resolvers/graph/relations.py``): forgetting
and the ``knowledge`` kind through the entries ``forgetKnowledge`` and ``knowledgeHistory``
call (``forget_for``, ``history_for`` of ``kenning.domain.memory.knowledge_request``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from enum import StrEnum
from typing import Annotated, Any, Final

from pydantic import Field

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion import relations
from kenning.domain.memory.knowledge_request import ItemRequest, forget_for, history_for
from kenning.domain.memory.node_history import node_history
from kenning.domain.memory.pages import DEFAULT_PAGE
from kenning.domain.memory.user_knowledge import KnowledgeCategory
from kenning.mcp.auth import Caller
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    canonical_key,
    canonical_keys,
    domain_errors,
    plain,
    read_scope,
)
from kenning.mcp.memory_arguments import ItemCategory, ItemSubject, Reason, UserKey, request_fields
from kenning.mcp.tool_spec import ToolSpec


class HistoryKind(StrEnum):
    """What ``get_history`` reads the versions of."""

    KNOWLEDGE = "knowledge"
    NODE = "node"
    EDGE = "edge"


@domain_errors
async def forget_knowledge_tool(
    ctx: ToolContext,
    category: ItemCategory,
    subject: ItemSubject,
    user_key: UserKey = None,
    reason: Reason = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Forget a fact about the user everywhere at once; its history keeps it."""
    request = ItemRequest(**request_fields(locals()))
    who = caller(ctx)
    forgotten = await forget_for(who.scoped, request, who.runtime.knowledge_deps())
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
    # The scope is the reader's already: the use case reads at it as the caller may.
    request = ItemRequest(category, subject, user_key, reader, first=first, after=after)
    page = await history_for(who.scoped, request, who.runtime.knowledge_versions)
    return {
        "versions": [_version(v) for v in page.nodes],
        "endCursor": page.end_cursor,
        "hasNextPage": page.has_next_page,
    }


async def _node(
    who: Caller, reader: Scope, key: str, user_key: str | None, first: int, after: str | None
) -> dict[str, Any]:
    canonical = await canonical_key(who, reader, key, "key")
    page = await node_history(reader, canonical, who.runtime.node_history, first=first, after=after)
    return {
        "versions": plain(page.nodes),
        "endCursor": page.end_cursor,
        "hasNextPage": page.has_next_page,
    }


def edge_parts(key: str) -> tuple[str, str, str | None]:
    """``from|edgeType|to`` (or ``from|edgeType``: every target) split; ``ValidationError``
    on key."""
    parts = key.split("|")
    if len(parts) not in (2, 3):
        raise ValidationError("key must be from|edgeType|to or from|edgeType", field="key")
    return parts[0], parts[1], parts[2] if len(parts) == 3 else None


async def _edge(
    who: Caller, reader: Scope, key: str, user_key: str | None, first: int, after: str | None
) -> dict[str, Any]:
    try:
        source, kind, end = relations.edge_keys(*edge_parts(key))
    except ValidationError as error:
        raise ValidationError(error.message, field="key") from None
    named = [(source, "key")] if end is None else [(source, "key"), (end, "key")]
    resolved = await canonical_keys(who, reader, named)
    keys = (resolved[0], kind, resolved[1] if end is not None else None)
    found = await relations.edge_history(reader, keys, who.runtime.relations)
    return {"intervals": plain(list(found))}


HISTORIES: Final[dict[HistoryKind, Reader]] = {
    HistoryKind.KNOWLEDGE: _knowledge,
    HistoryKind.NODE: _node,
    HistoryKind.EDGE: _edge,
}


@domain_errors
async def get_history_tool(
    ctx: ToolContext,
    key: Annotated[
        str,
        Field(
            description="The item: for knowledge CATEGORY:subject (e.g. 'PREFERENCE:editor'), "
            "for a node its key ('service:billing'), for an edge from|edgeType|to "
            "('service:billing|database|db:postgres') or from|edgeType (every target)."
        ),
    ],
    kind: Annotated[HistoryKind, Field(description="What kind of item.")] = (HistoryKind.KNOWLEDGE),
    user_key: UserKey = None,
    first: Annotated[int, Field(description="How many versions, 1..50.")] = DEFAULT_PAGE,
    after: Annotated[str | None, Field(description="endCursor of the previous page.")] = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """One page of an item's versions, newest first, forgotten ones included (an edge's
    intervals: all of them, oldest first)."""
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
        "user_key it belongs to; kind 'node' with a node key for every value its properties "
        "held (source, observedAt, recordedAt, endedAt); kind 'edge' with key "
        "from|edgeType|to (or from|edgeType) for every interval the edge held, oldest first, "
        "and why each ended.",
        read_only=True,
    ),
)

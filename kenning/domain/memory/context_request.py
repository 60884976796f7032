"""An ``agentContext`` request by keys, as GraphQL, MCP and the benchmark make it: the keys
parsed (a bad one names its argument), resolved through the reader's client's aliases, read
as the reader sees them, then assembled (``agent_context.py``).

``context_for`` is the use case both faces call (GraphQL's ``agentContext``, MCP's
``get_context``): the caller's read scope, the time it answers for, the user named once,
then ``context_for_keys``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.aliases import alias_resolved
from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.ingestion.ports import AliasResolver
from kenning.domain.ingestion.validity import as_of as read_time
from kenning.domain.memory.agent_context import (
    GLOBAL_KEY,
    MemoryPorts,
    Shape,
    When,
    agent_context,
    check_request,
)
from kenning.domain.retrieval.agent_context import AgentContext


async def context_for_keys(
    query: str,
    *,
    user: tuple[str, str] | None,
    entity_keys: Sequence[str] = (),
    limit: int = 10,
    budget: int | None = None,
    reader: Scope,
    now: datetime,
    ports: MemoryPorts,
    aliases: AliasResolver,
    when: When | None = None,
    shape: Shape | None = None,
) -> AgentContext:
    """``agent_context`` for ``user`` (its key and the argument that named it) and
    ``entity_keys``; keys that are not visible are left out. The client's global metadata
    is read with them, in the same statement."""
    shape = shape or Shape()
    check_request(query, len(entity_keys), limit, budget, shape.depth)
    asked = [parse_key(user[0], field=user[1]).key] if user is not None else []
    asked += [parse_key(key, field="entityKeys").key for key in entity_keys]
    keys = await alias_resolved(reader.client_id, asked, aliases)
    nodes = await ports.graph.nodes(reader, [*keys, GLOBAL_KEY])
    first = 1 if user is not None else 0
    return await agent_context(
        query,
        user=nodes.get(keys[0]) if user is not None else None,
        entities=[nodes[k] for k in dict.fromkeys(keys[first:]) if k in nodes],
        limit=limit,
        budget=budget,
        reader=reader,
        now=now,
        ports=ports,
        when=when,
        user_key=asked[0] if user is not None else None,
        shape=shape,
        global_metadata=nodes.get(GLOBAL_KEY),
    )


@dataclass(frozen=True, slots=True)
class ContextRequest:
    """What an agent asks context for: ``user_key`` and ``entity_key`` both name the user
    (one at most), ``as_of`` None answers as now, ``scope`` None is the key's own; ``shape``
    the graph's depth, the search's filters and the formatter (``Shape.asked``)."""

    query: str
    user_key: str | None = None
    entity_key: str | None = None
    entity_keys: Sequence[str] | None = None
    limit: int = 10
    budget: int | None = None
    as_of: datetime | None = None
    include_history: bool = False
    scope: Scope | None = None
    shape: Shape = field(default_factory=Shape)


@dataclass(frozen=True, slots=True)
class ReadContext:
    """The context assembled, and the scope it was read at (its nodes are read as that)."""

    context: AgentContext
    reader: Scope


async def context_for(
    caller: CallerScope, request: ContextRequest, ports: MemoryPorts, aliases: AliasResolver
) -> ReadContext:
    """What an agent should know for the request's query: rules, the user, pieces, graph,
    session and procedures."""
    now = datetime.now(UTC)
    when = When(read_time(request.as_of, now), request.include_history)
    reader = caller.reading(request.scope)
    if request.user_key is not None and request.entity_key is not None:
        raise ValidationError(
            "give userKey or entityKey (the same role), not both", field="entityKey"
        )
    user = (request.user_key, "userKey") if request.user_key is not None else None
    user = (request.entity_key, "entityKey") if request.entity_key is not None else user
    found = await context_for_keys(
        request.query,
        user=user,
        entity_keys=request.entity_keys or [],
        limit=request.limit,
        budget=request.budget,
        reader=reader,
        now=now,
        ports=ports,
        aliases=aliases,
        when=when,
        shape=request.shape,
    )
    return ReadContext(found, reader)

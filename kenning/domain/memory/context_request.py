"""An ``agentContext`` request by keys, as GraphQL, MCP and the benchmark make it: the keys
parsed (a bad one names its argument), resolved through the reader's client's aliases, read
as the reader sees them, then assembled (``agent_context.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.aliases import alias_resolved
from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.ingestion.ports import AliasResolver
from kenning.domain.memory.agent_context import MemoryPorts, When, agent_context, check_request
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
) -> AgentContext:
    """``agent_context`` for ``user`` (its key and the argument that named it) and
    ``entity_keys``; keys that are not visible are left out."""
    check_request(query, len(entity_keys), limit, budget)
    asked = [parse_key(user[0], field=user[1]).key] if user is not None else []
    asked += [parse_key(key, field="entityKeys").key for key in entity_keys]
    keys = await alias_resolved(reader.client_id, asked, aliases)
    nodes = await ports.graph.nodes(reader, keys) if keys else {}
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
    )

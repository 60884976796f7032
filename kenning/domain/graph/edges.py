"""An edge named by a caller, as GraphQL (``edgeHistory``, ``retractEdge``:
``resolvers/graph/relations.py``) and MCP (``retract_edge``: ``mcp/graph_tools.py``) name it:
the keys and relation checked (a bad one names its argument), the ends resolved through the
aliases of the client the edge lives at, then read or ended (``ingestion.relations``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.ingestion import relations
from kenning.domain.ingestion.aliases import alias_resolved
from kenning.domain.ingestion.ports import AliasResolver
from kenning.domain.ingestion.relations import IntervalView, RelationStore


@dataclass(frozen=True, slots=True)
class EdgePorts:
    """Where edges' intervals are kept, and the alias book."""

    relations: RelationStore
    aliases: AliasResolver


@dataclass(frozen=True, slots=True)
class EdgeAsk:
    """An edge as typed: its start, relation and end (None: every end, in a history only),
    the scope argument, and why it is ended (a retraction only)."""

    from_key: str
    edge_type: str
    to_key: str | None = None
    scope: Scope | None = None
    reason: str | None = None


async def _keys(
    ask: EdgeAsk, client_id: str, aliases: AliasResolver
) -> tuple[str, str, str | None]:
    source, kind, end = relations.edge_keys(ask.from_key, ask.edge_type, ask.to_key)
    named = [source] if end is None else [source, end]
    resolved = await alias_resolved(client_id, named, aliases)
    return resolved[0], kind, (resolved[1] if end is not None else None)


async def edge_intervals(
    caller: CallerScope, ask: EdgeAsk, ports: EdgePorts
) -> Sequence[IntervalView]:
    """Every interval of the edge the caller may see (of every end without one), oldest
    first."""
    reader = caller.reading(ask.scope)
    keys = await _keys(ask, reader.client_id, ports.aliases)
    return await relations.edge_history(reader, keys, ports.relations)


async def retract(caller: CallerScope, ask: EdgeAsk, ports: EdgePorts) -> bool:
    """End the edge now at the caller's write scope (RETRACTED, by the caller's key); False
    when no such edge held."""
    target = await caller.stored_writing(ask.scope)
    source, kind, end = await _keys(ask, target.client_id, ports.aliases)
    assert end is not None, "a retraction names both ends"
    return await relations.retract_edge(
        caller.principal, target, (source, kind, end), ports.relations, ask.reason
    )

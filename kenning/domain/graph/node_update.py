"""``updateNode`` as GraphQL (``resolvers/memory/node_history.py``) and MCP (``update_node``
in ``mcp/graph_tools.py``) both make it: the write scope settled, the key parsed and resolved
through the client's aliases, the correction made (``memory.node_history.update_node``,
which the runtime hands in with the store and the server's secret policy: the graph feature
sits below memory), and the node read back as the caller sees it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.principal import Principal
from kenning.domain.access.scope import Scope
from kenning.domain.graph.model import GraphReader, NodeView
from kenning.domain.ingestion.aliases import alias_resolved
from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.ingestion.node_properties import PropertyChange
from kenning.domain.ingestion.ports import AliasResolver


class Changed(Protocol):
    """What a correction changed."""

    @property
    def changes(self) -> Sequence[PropertyChange]: ...


class NodeUpdater(Protocol):
    """Corrects the node ``key`` (canonical) at ``target``; ``NotFoundError`` without one."""

    async def __call__(
        self,
        caller: Principal,
        target: Scope,
        key: str,
        values: object,
        unset: list[str] | None,
        *,
        reason: str | None = None,
        observed_at: datetime | None = None,
    ) -> Changed: ...


@dataclass(frozen=True, slots=True)
class NodeEditPorts:
    """The correction, the graph the node is read back from, and the alias book."""

    update: NodeUpdater
    graph: GraphReader
    aliases: AliasResolver


@dataclass(frozen=True, slots=True)
class NodeEdit:
    """The node's key as typed, the properties to set (a JSON object) and to remove, why,
    since when, and the scope argument."""

    key: str
    values: object = None
    unset: Sequence[str] | None = None
    reason: str | None = None
    observed_at: datetime | None = None
    scope: Scope | None = None


@dataclass(frozen=True, slots=True)
class NodeEdited:
    """The node as the caller now sees it (None: not visible), what changed, and the scope
    it was read at."""

    node: NodeView | None
    changes: Sequence[PropertyChange]
    reader: Scope


async def edit_node(caller: CallerScope, edit: NodeEdit, ports: NodeEditPorts) -> NodeEdited:
    """Correct a node's properties at the caller's write scope; what they held stays in
    its history."""
    target = await caller.stored_writing(edit.scope)
    parsed = parse_key(edit.key).key
    [canonical] = await alias_resolved(target.client_id, [parsed], ports.aliases)
    updated = await ports.update(
        caller.principal,
        target,
        canonical,
        edit.values,
        None if edit.unset is None else list(edit.unset),
        reason=edit.reason,
        observed_at=edit.observed_at,
    )
    reader = caller.reading(edit.scope)
    node = (await ports.graph.nodes(reader, [canonical])).get(canonical)
    return NodeEdited(node, updated.changes, reader)

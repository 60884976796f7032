"""Listing the nodes a caller can see without a search text (GraphQL's ``allNodes``): by
key, optionally of some types, one page at a time after an opaque cursor naming the last
key of the page. Each key is read as ``node`` reads it (its visible vertices merged), so a
listed node shows exactly what ``node(key)`` would.

Example: ``page = await list_nodes(caller, NodesRead(types=("service",)), ports)``.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.graph.find import node_types
from kenning.domain.graph.model import GraphReader, NodeView, check_range

DEFAULT_PAGE: Final = 50
MAX_PAGE: Final = 200
_PREFIX: Final = "allNodes:"


class NodeListing(Protocol):
    """The keys of visible nodes in key order; storage implements it."""

    async def node_keys(
        self, reader: Scope, types: tuple[str, ...] | None, first: int, after: str | None
    ) -> list[str]:
        """Up to ``first`` distinct keys with a vertex ``reader`` may see (of ``types``, when
        given), greater than ``after``, in order."""
        ...


@dataclass(frozen=True, slots=True)
class NodeListPorts:
    """Where keys are listed and nodes read."""

    listing: NodeListing
    graph: GraphReader


@dataclass(frozen=True, slots=True)
class NodesRead:
    """An ``allNodes`` request: types (None: any), page, narrowing (None: the key's scope)."""

    types: Sequence[str] | None = None
    first: int = DEFAULT_PAGE
    after: str | None = None
    scope: Scope | None = None


@dataclass(frozen=True, slots=True)
class NodePage:
    """Nodes by key, the cursor after the last one, and whether more follow."""

    nodes: tuple[NodeView, ...]
    reader: Scope
    end_cursor: str | None
    has_next_page: bool


def node_cursor(key: str) -> str:
    """An opaque cursor after ``key``."""
    return base64.urlsafe_b64encode(f"{_PREFIX}{key}".encode()).decode().rstrip("=")


def after_key(cursor: str | None) -> str | None:
    """The key a ``node_cursor`` names; ``ValidationError`` on ``after`` otherwise."""
    if cursor is None:
        return None
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    except (ValueError, binascii.Error, UnicodeDecodeError):
        text = ""
    if not text.startswith(_PREFIX) or len(text) == len(_PREFIX):
        raise ValidationError("after is not a cursor of allNodes", field="after")
    return text.removeprefix(_PREFIX)


async def list_nodes(caller: CallerScope, asked: NodesRead, ports: NodeListPorts) -> NodePage:
    """One page of the nodes the caller may see, by key."""
    reader = caller.reading(asked.scope)
    first = check_range(asked.first, 1, MAX_PAGE, "first")
    types = node_types(asked.types)
    after = after_key(asked.after)
    if types == ():
        return NodePage((), reader, None, False)
    keys = await ports.listing.node_keys(reader, types, first + 1, after)
    kept = keys[:first]
    found = await ports.graph.nodes(reader, kept)
    nodes = tuple(found[key] for key in kept if key in found)
    end = node_cursor(kept[-1]) if kept else None
    return NodePage(nodes, reader, end, len(keys) > first)

"""The ``changes`` records of the graph: a node corrected with ``updateNode`` (kind ``NODE``)
and an edge retracted (kind ``EDGE``). Their stores write them in the transaction of the
change itself, at the vertex's or edge's scope, so ``changes(key: <node key>)`` lists both.

A node's record names it by its key (``itemId`` and ``itemKey``) and holds the changed
properties before (``old``) and after (``new``: a removed one is absent). An edge's record is
``from|edgeType|to`` (``itemId``), keyed by its start node (``itemKey``).
"""

from __future__ import annotations

from kenning.domain.access.scope import Scope
from kenning.domain.memory.changes import Change, ChangeAction, ItemKind
from kenning.domain.memory.node_history import Correction, NodeUpdate


def edge_item(from_key: str, edge_type: str, to_key: str) -> str:
    """An edge's ``itemId`` in the change log: ``service:billing|database|db:postgres``."""
    return f"{from_key}|{edge_type}|{to_key}"


def node_change(update: NodeUpdate, correction: Correction) -> Change:
    """The record of a correction that changed something."""
    return Change(
        kind=ItemKind.NODE,
        item_id=update.key,
        item_key=update.key,
        action=ChangeAction.UPDATE,
        scope=update.scope,
        changed_by=correction.by,
        old={c.name: c.old for c in update.changes if c.old is not None},
        new={c.name: c.new for c in update.changes if not c.removed},
        reason=correction.reason,
    )


def retraction_change(
    scope: Scope, edge: tuple[str, str, str], by: str, reason: str | None
) -> Change:
    """The record of an edge ``(from, edgeType, to)`` at ``scope`` retracted by key ``by``."""
    from_key, edge_type, to_key = edge
    held = {"from": from_key, "edgeType": edge_type, "to": to_key}
    return Change(
        kind=ItemKind.EDGE,
        item_id=edge_item(from_key, edge_type, to_key),
        item_key=from_key,
        action=ChangeAction.RETRACT,
        scope=scope,
        changed_by=by,
        old={**held, "current": True},
        new={**held, "current": False, "endedReason": "RETRACTED"},
        reason=reason,
    )

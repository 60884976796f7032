"""The lines of ``agentContext``'s sections, one function per kind of item (see
``agent_context`` for the order and the sections), and where each piece and edge goes: the
routing table of the knowledge-integration design (003 §KnowledgeProvider Routing):

====================================================  ==================================
source                                                section
====================================================  ==================================
entity metadata (and the client's global metadata)    ``user_profile``
a piece                                               its own info type (none: context)
an edge with a linked piece                           that piece's info type
an edge from the active entity, no linked piece       ``user_profile``
any other edge, no linked piece                       ``context``
====================================================  ==================================
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from kenning.domain.graph.model import EdgeView, NodeView
from kenning.domain.memory import procedures, rules, session, user_knowledge
from kenning.domain.retrieval.agent_context import ContextLine, value_text
from kenning.domain.retrieval.context_format import Block
from kenning.domain.retrieval.search import SearchHit

# Soft pieces never enter the sections that hold one store's items (rules above all).
MEMORY_SECTIONS: Final = frozenset({"rules", "session", "procedures", "history"})


def routed(info_type: str | None) -> str:
    """The section a piece of ``info_type`` goes to (none, or a memory section: context)."""
    if not info_type or info_type in MEMORY_SECTIONS:
        return "context"
    return info_type


def edge_section(edge: EdgeView, user_key: str | None, piece_types: dict[str, str]) -> str:
    """Where an edge goes: its first linked piece's info type, else ``user_profile`` when it
    leaves the active entity, else ``context``."""
    linked = [piece_types[c] for c in sorted(edge.evidence_chunk_ids) if c in piece_types]
    if linked:
        return routed(linked[0])
    return "user_profile" if user_key is not None and edge.from_key == user_key else "context"


def node_text(key: str) -> str:
    """A key as the design writes a node: ``Type:id`` (``technique:les`` → ``Technique:les``)."""
    kind, _, ident = key.partition(":")
    return f"{kind[:1].upper()}{kind[1:]}:{ident}"


def label_of(node: NodeView | None) -> str | None:
    """A node's ``label``, else its ``name``, as text; None when it has neither."""
    if node is None:
        return None
    value = node.properties.get("label", node.properties.get("name"))
    return None if value is None or value == "" else value_text(value)


def edge_line(
    edge: EdgeView, user_key: str | None, nodes: dict[str, NodeView], score: float | None = None
) -> tuple[tuple[str, str, str], ContextLine]:
    """``EDGE_TYPE → Type:id (label)`` for an edge of the active entity; any other edge
    names its source first. Ranked by (relation, target, source); ``score`` is the graph's
    (1/hop), kept on the line, not in its text."""
    label = label_of(nodes.get(edge.to_key))
    target = node_text(edge.to_key) + (f" ({' '.join(label.split())})" if label else "")
    text = f"{edge.edge_type.upper()} → {target}"
    if user_key is None or edge.from_key != user_key:
        text = f"{node_text(edge.from_key)} {text}"
    rank = (edge.edge_type, edge.to_key, edge.from_key)
    shown = None if score is None else round(score, 6)
    return rank, ContextLine(text, edge.evidence_chunk_ids, shown, Block.RELATIONSHIPS)


def knowledge_line(item: user_knowledge.KnowledgeItem) -> ContextLine:
    """What is known about the user, as a knowledge item of its category."""
    content = " ".join(item.content.split())
    text = f"[{item.category.value.lower()}] {item.subject}: {content}"
    return ContextLine(text, block=Block.KNOWLEDGE)


def rule_line(rule: rules.HardRule) -> ContextLine:
    return ContextLine(
        f"{rule.rule_key} ({rule.rule_type.value}): {' '.join(rule.content.split())}"
    )


def session_line(entry: session.SessionEntry) -> ContextLine:
    at = entry.created_at.isoformat(timespec="seconds")
    return ContextLine(f"{at} {entry.source.value}: {' '.join(entry.summary.split())}")


def procedure_line(match: procedures.ProcedureMatch) -> ContextLine:
    found = match.procedure
    steps = ", ".join(f"{s.agent}.{s.action}" for s in found.steps)
    text = f"{found.trigger_pattern} ({found.source.value}): {found.description} | steps: {steps}"
    return ContextLine(" ".join(text.split()), (), round(match.score, 6))


def day(value: datetime | None) -> str:
    return "?" if value is None else value.isoformat(timespec="seconds")


def ended_line(edge: EdgeView) -> ContextLine:
    v = edge.validity
    if v is None:
        span = ""
    else:
        reason = f", {v.ended_reason.value} by {v.ended_by}" if v.ended_reason else ""
        span = f" (valid {day(v.valid_from)} to {day(v.valid_to)}{reason})"
    text = f"{edge.from_key} {edge.edge_type} {edge.to_key}{span}"
    return ContextLine(text, edge.evidence_chunk_ids)


def superseded_line(hit: SearchHit) -> ContextLine:
    chunk = hit.chunk
    content = " ".join(chunk.content.split())
    text = f"{content} (superseded {day(chunk.superseded_at)} by {chunk.superseded_by or '?'})"
    return ContextLine(text, (chunk.id,), round(hit.score, 6))

"""The lines of ``agentContext``'s sections, one function per kind of item (see
``agent_context`` for the order and the sections)."""

from __future__ import annotations

from datetime import datetime
from typing import Final

from kenning.domain.graph.model import EdgeView
from kenning.domain.memory import procedures, rules, session, user_knowledge
from kenning.domain.retrieval.agent_context import ContextLine
from kenning.domain.retrieval.search import SearchHit

# Soft pieces never enter the sections that hold one store's items (rules above all).
MEMORY_SECTIONS: Final = frozenset({"rules", "session", "procedures", "history"})


def routed(info_type: str | None) -> str:
    """The section a piece of ``info_type`` goes to (none, or a memory section: context)."""
    if not info_type or info_type in MEMORY_SECTIONS:
        return "context"
    return info_type


def edge_line(
    edge: EdgeView, user_key: str | None, evidence_types: dict[str, str]
) -> tuple[str, tuple[str, str, str], ContextLine]:
    rank = (edge.edge_type, edge.to_key, edge.from_key)
    if edge.from_key == user_key:
        return (
            "user_profile",
            rank,
            ContextLine(f"{edge.edge_type} {edge.to_key}", edge.evidence_chunk_ids),
        )
    linked = [evidence_types[c] for c in sorted(edge.evidence_chunk_ids) if c in evidence_types]
    section = routed(linked[0] if linked else None)
    text = f"{edge.from_key} {edge.edge_type} {edge.to_key}"
    return section, rank, ContextLine(text, edge.evidence_chunk_ids)


def knowledge_line(item: user_knowledge.KnowledgeItem) -> ContextLine:
    content = " ".join(item.content.split())
    return ContextLine(f"{item.category.value.lower()} / {item.subject}: {content}")


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

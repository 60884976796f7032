"""What one ``agentContext`` request found, and its deterministic sections (the order and
routing ``agent_context`` describes; how each reads, ``kenning.domain.retrieval.context_format``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kenning.domain.graph.model import EdgeView, NodeView
from kenning.domain.memory import context_lines as formats
from kenning.domain.memory import procedures, rules, session, user_knowledge
from kenning.domain.retrieval.agent_context import (
    ContextLine,
    ContextSection,
    entity_line,
    fit,
    piece_line,
    property_lines,
    ranked_hits,
    section_order,
)
from kenning.domain.retrieval.context_format import DEFAULT_FORMAT, Block, ContextFormat
from kenning.domain.retrieval.search import SearchHit

Ranked = tuple[tuple[str, str, str], ContextLine]


@dataclass(slots=True)
class Found:
    """What the stores returned for one request, before it is formatted."""

    user: NodeView | None = None
    entities: list[NodeView] = field(default_factory=list)
    rules: list[rules.HardRule] = field(default_factory=list)
    knowledge: list[user_knowledge.KnowledgeItem] = field(default_factory=list)
    hits: list[SearchHit] = field(default_factory=list)  # search hits and linked pieces
    edges: list[EdgeView] = field(default_factory=list)
    piece_types: dict[str, str] = field(default_factory=dict)  # of the edges' linked pieces
    edge_scores: dict[int, float] = field(default_factory=dict)  # 1/hop, by edge id
    nodes: dict[str, NodeView] = field(default_factory=dict)  # the edges' targets, for labels
    global_metadata: NodeView | None = None
    session: list[session.SessionEntry] = field(default_factory=list)
    procedures: list[procedures.ProcedureMatch] = field(default_factory=list)
    ended: list[EdgeView] = field(default_factory=list)  # history only
    superseded: list[SearchHit] = field(default_factory=list)  # history only
    history: bool = False
    fmt: ContextFormat = DEFAULT_FORMAT


def build_sections(found: Found, budget: int | None) -> tuple[ContextSection, ...]:
    """The deterministic sections of what was found, each fitted to ``budget``."""
    fmt = found.fmt
    heads = _metadata(found)
    pieces: dict[str, list[ContextLine]] = {}
    if found.knowledge:
        pieces["user_profile"] = [formats.knowledge_line(i) for i in found.knowledge]
    for hit in ranked_hits(found.hits):
        pieces.setdefault(formats.routed(hit.chunk.info_type), []).append(piece_line(hit))
    graph: dict[str, list[Ranked]] = {}
    user_key = found.user.key if found.user else None
    for edge in found.edges:
        section = formats.edge_section(edge, user_key, found.piece_types)
        score = found.edge_scores.get(edge.id)
        graph.setdefault(section, []).append(formats.edge_line(edge, user_key, found.nodes, score))
    ordered = [
        (name, [*heads.get(name, []), *pieces.get(name, []), *_by_rank(graph.get(name, []))])
        for name in section_order({*heads, *pieces, *graph})
    ]
    sections = [ContextSection("rules", tuple(map(formats.rule_line, found.rules)), fmt=fmt)]
    sections += [fit(name, lines, budget, fmt) for name, lines in ordered]
    sections.append(fit("session", list(map(formats.session_line, found.session)), budget, fmt))
    matched = list(map(formats.procedure_line, found.procedures))
    sections.append(fit("procedures", matched, budget, fmt))
    if found.history:
        sections.append(fit("history", _history(found), budget, fmt))
    return tuple(s for s in sections if s.lines or s.omitted)


def _metadata(found: Found) -> dict[str, list[ContextLine]]:
    """The user's metadata and the client's global metadata (``user_profile``), and the
    other entities' (``context``)."""
    heads: dict[str, list[ContextLine]] = {"user_profile": []}
    if found.user is not None:
        heads["user_profile"] += property_lines(found.user.properties)
    if found.global_metadata is not None:
        heads["user_profile"] += property_lines(
            found.global_metadata.properties, Block.GLOBAL_METADATA
        )
    heads["context"] = [entity_line(e) for e in sorted(found.entities, key=lambda e: e.key)]
    return heads


def _by_rank(ranked: list[Ranked]) -> list[ContextLine]:
    return [line for _, line in sorted(ranked, key=lambda pair: pair[0])]


def _history(found: Found) -> list[ContextLine]:
    ended = sorted(found.ended, key=lambda e: (e.edge_type, e.to_key, e.from_key, e.id))
    lines = [formats.ended_line(e) for e in ended]
    return lines + [formats.superseded_line(h) for h in ranked_hits(found.superseded)]

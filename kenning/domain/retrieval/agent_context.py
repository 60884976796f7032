"""Agent context's building blocks: lines, sections, their text and the character budget.

``kenning.domain.memory.agent_context`` assembles the sections (rules, the user's profile,
pieces by info type, the graph, the session, procedures); this module owns how a section
reads, so the same lines always give the same text:

- a section is ``## <name>`` then its lines in rank order (highest first), as
  ``kenning.domain.retrieval.context_format`` lays them out: an info type's in blocks
  (``[Metadata]``, ``[Global Metadata]``, ``[Knowledge]``, ``[Relationships]``), the memory
  sections' as bullets;
- under a budget, the lowest-ranked lines are cut first until the section's text fits, and a
  last line says how many were cut (``- [3 lower-ranked items cut to fit 500 characters]``);
- pieces are ranked by score (highest first) then chunk id, properties by name.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kenning.domain.embedding import Embedder
from kenning.domain.graph.model import NodeView
from kenning.domain.priorities import BACKGROUND_PRIORITY
from kenning.domain.retrieval.context_format import DEFAULT_FORMAT, Block, ContextFormat
from kenning.domain.retrieval.context_format import section_text as format_section
from kenning.domain.retrieval.search import SearchHit

SECTION_ORDER = ("user_profile", "instructions", "context", "skills")
HIDDEN_PROPERTIES = frozenset({"key", "type", "client", "project", "group"})


@dataclass(frozen=True, slots=True)
class ContextLine:
    """One line of a section, where it came from, and the block it is shown in (None: a
    bullet of a memory section)."""

    text: str
    chunk_ids: tuple[str, ...] = ()
    score: float | None = None
    block: Block | None = None
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ContextSection:
    """The lines of one section, how many lower-ranked lines the budget cut, and its text."""

    info_type: str
    lines: tuple[ContextLine, ...]
    omitted: int = 0
    budget: int | None = None
    fmt: ContextFormat = DEFAULT_FORMAT

    @property
    def text(self) -> str:
        """The section as prompt text."""
        return format_section(self.info_type, self.lines, self.omitted, self.budget, self.fmt)


@dataclass(frozen=True, slots=True)
class AgentContext:
    """The user entity (if visible) and the sections."""

    entity: NodeView | None
    sections: tuple[ContextSection, ...]
    fmt: ContextFormat = DEFAULT_FORMAT

    @property
    def text(self) -> str:
        """All sections as one prompt-ready text."""
        return self.fmt.section_delimiter.join(section.text for section in self.sections)


def fit(
    name: str,
    lines: Sequence[ContextLine],
    budget: int | None,
    fmt: ContextFormat = DEFAULT_FORMAT,
) -> ContextSection:
    """The section of ``lines`` (rank order), its lowest-ranked lines cut until it fits."""
    kept = list(lines)
    if budget is None:
        return ContextSection(name, tuple(kept), fmt=fmt)
    while kept and len(format_section(name, kept, len(lines) - len(kept), budget, fmt)) > budget:
        kept.pop()
    return ContextSection(name, tuple(kept), len(lines) - len(kept), budget, fmt)


def section_order(names: Iterable[str]) -> list[str]:
    """The info-type sections in their fixed order, any other info type alphabetically."""
    present = set(names)
    return [s for s in SECTION_ORDER if s in present] + sorted(present - set(SECTION_ORDER))


def ranked_hits(hits: Iterable[SearchHit]) -> list[SearchHit]:
    """Hits by score (highest first) then chunk id."""
    return sorted(hits, key=lambda hit: (-hit.score, hit.chunk.id))


def piece_line(hit: SearchHit) -> ContextLine:
    """A piece as a knowledge item: ``[knowledge_type] content`` on one line (the content
    alone when it has no knowledge type), its chunk, its rounded score and its tags."""
    chunk = hit.chunk
    content = " ".join(chunk.content.split())
    text = f"[{chunk.knowledge_type.lower()}] {content}" if chunk.knowledge_type else content
    return ContextLine(text, (chunk.id,), round(hit.score, 6), Block.KNOWLEDGE, chunk.tags)


def property_lines(
    properties: Mapping[str, object], block: Block = Block.METADATA
) -> list[ContextLine]:
    """One ``name: value`` line per visible property, by name."""
    return [
        ContextLine(f"{name}: {value_text(value)}", block=block)
        for name, value in visible(properties)
    ]


def entity_line(node: NodeView) -> ContextLine:
    """An entity's key and its visible properties by name on one line."""
    pairs = "; ".join(f"{name}={value_text(value)}" for name, value in visible(node.properties))
    text = f"{node.key} ({node.type}): {pairs}" if pairs else f"{node.key} ({node.type})"
    return ContextLine(text, block=Block.METADATA)


def visible(properties: Mapping[str, object]) -> list[tuple[str, object]]:
    """The properties a reader is shown (not the vertex's own bookkeeping), by name."""
    return sorted((k, v) for k, v in properties.items() if k not in HIDDEN_PROPERTIES)


def value_text(value: object) -> str:
    """A property value as text: strings as they are, anything else as sorted JSON."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


class OnceEmbedder:
    """One request's embedder: each distinct list of texts is embedded once (the search and
    the procedures both embed the query; only the first call reaches the model)."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self._lock = asyncio.Lock()
        self._done: dict[tuple[str, ...], list[list[float]]] = {}

    @property
    def model(self) -> str:
        return self._inner.model

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    async def embed(
        self, texts: Sequence[str], *, priority: int = BACKGROUND_PRIORITY
    ) -> list[list[float]]:
        """The vectors of ``texts``, from the first call that asked for them."""
        key = tuple(texts)
        async with self._lock:
            if key not in self._done:
                self._done[key] = await self._inner.embed(texts, priority=priority)
        return [list(v) for v in self._done[key]]

    async def aclose(self) -> None:
        """Nothing to release: the inner embedder belongs to the runtime."""

"""Node references and relationships found in content or given as a list of strings.

Relationship formats: pipe ``from|edgeType|to``, arrow ``from->edgeType->to``, bracket
``from -[edgeType]-> to``, and a ``relationships: ["...", ...]`` block in the content. An
endpoint without a namespace is short-hand for the main node's namespace. Every key comes
out normalized and canonical (see ``keys``); aliases are applied afterwards with
``apply_aliases`` because they live in storage.

Free text is read conservatively, because a wrong edge is worse than a missing one:
- a reference is ``type:id`` or ``type::id`` where ``type`` is ASCII letters, digits, ``_``
  or ``-`` starting with a letter and begins a token; the id starts right after the colon
  (``# TASK-123: Fix`` is no reference); ``scheme://...`` URLs, ``mailto:``/``urn:``-like
  schemes, times such as ``12:30`` and code paths such as ``Vec::new()`` are not;
- a relationship in prose is one whitespace-free triple (pipe form without spaces around
  the pipes, so table rows stay tables) with at least one endpoint that is a reference or
  the main node's id. In the block and the ``relationships`` input, every item counts, and
  an item that cannot be read becomes a warning instead of failing the rest.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion._relationship_block import (
    BlockItem,
    BlockProblem,
    find_blocks,
    mask_blocks,
)
from kenning.domain.ingestion.extraction_warnings import (
    EXCERPT_CHARS,
    ExtractionWarning,
    WarningSource,
    key_warning,
)
from kenning.domain.ingestion.extraction_warnings import (
    excerpt as _excerpt,
)
from kenning.domain.ingestion.node_keys import NodeKey, normalize_edge_type, parse_key

_NOT_REFERENCE_SCHEMES = frozenset({"mailto", "tel", "urn", "data", "javascript"})
_REFERENCE = re.compile(
    # An id may hold `-` but never the `-` of an arrow (`user:bob->OWNS->x`).
    r"(?<![\w:/.@#-])(?P<ns>[A-Za-z][A-Za-z0-9_-]*)(?P<sep>::?)(?!//)"
    r"(?P<id>(?:[\w@#./]|-(?!>))+)"
)
_CODE_PATH_AFTER = re.compile(r"\(|<|::")
_KEY_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9_-]*::?(?!//)[^\s:]")

# A prose token: no whitespace, quotes, brackets or separators of the list it sits in.
_TOKEN = r"[^\s|\"'`<>()\[\]{},;*]+"
_BEFORE = r"(?<![^\s\"'`(\[{,;])"
_EDGE_WORD = r"[A-Za-z][\w-]*"
_PROSE_FORMS = (
    re.compile(
        rf"{_BEFORE}(?P<src>{_TOKEN})\s*-\[\s*(?P<edge>[^\[\]\n]{{1,100}}?)\s*\]->\s*(?P<dst>{_TOKEN})"
    ),
    re.compile(
        rf"{_BEFORE}(?P<src>{_TOKEN})\s*->\s*(?P<edge>{_EDGE_WORD})\s*->\s*(?P<dst>{_TOKEN})"
    ),
    re.compile(rf"{_BEFORE}(?P<src>{_TOKEN})\|(?P<edge>{_EDGE_WORD})\|(?P<dst>{_TOKEN})(?!\|)"),
)
_ITEM_BRACKET = re.compile(r"(?P<src>.+?)\s*-\[\s*(?P<edge>[^\[\]]+?)\s*\]->\s*(?P<dst>.+)", re.S)
_TRAILING_PUNCTUATION = ".,;:!?"


@dataclass(frozen=True, slots=True)
class Relationship:
    """A directed, typed edge between two canonical node keys."""

    from_key: str
    edge_type: str
    to_key: str

    def __str__(self) -> str:
        return f"{self.from_key}|{self.edge_type}|{self.to_key}"


@dataclass(frozen=True, slots=True)
class Extraction:
    """References (canonical keys), relationships in first-seen order, and warnings."""

    references: frozenset[str]
    relationships: tuple[Relationship, ...]
    warnings: tuple[ExtractionWarning, ...]


def extract(
    content: str, main_node_key: str | None = None, relationships: Iterable[str] = ()
) -> Extraction:
    """Find references and relationships in ``content`` and in the ``relationships`` input."""
    main = parse_key(main_node_key, field="mainNodeKey") if main_node_key else None
    found = _Collector(main)
    blocks = find_blocks(content)
    text = mask_blocks(content, blocks)
    lines = _line_starts(content)
    for match in _REFERENCE.finditer(text):
        found.reference(match, bisect.bisect_right(lines, match.start()))
    # Block entries interleave with prose by line so "first seen" means document order.
    entries: dict[int, list[BlockItem | BlockProblem]] = {}
    for block in blocks:
        block_entries: list[BlockItem | BlockProblem] = [*block.items, *block.problems]
        for entry in sorted(block_entries, key=lambda e: e.line):
            entries.setdefault(entry.line, []).append(entry)
    for number, line in enumerate(text.split("\n"), start=1):
        if "|" in line or "->" in line:
            found.prose_line(number, line)
        for entry in entries.get(number, ()):
            if isinstance(entry, BlockItem):
                found.item("content", entry.line, entry.text)
            else:
                found.warn("content", entry.line, entry.excerpt, entry.reason)
    for index, text_item in enumerate(relationships, start=1):
        found.item("relationships", index, text_item)
    return found.result()


def parse_relationship(text: str, main_node_key: str | None = None) -> Relationship:
    """Parse one relationship in any format; ``ValidationError`` when it cannot be read."""
    main = parse_key(main_node_key, field="mainNodeKey") if main_node_key else None
    return _parse_item(text, main, [])


def apply_aliases(extraction: Extraction, aliases: Mapping[str, str]) -> Extraction:
    """Re-key an extraction through an alias map (canonical alias key → canonical key)."""

    def resolve(key: str) -> str:
        return aliases.get(key, key)

    relationships: dict[Relationship, None] = {}
    for rel in extraction.relationships:
        resolved = Relationship(resolve(rel.from_key), rel.edge_type, resolve(rel.to_key))
        # Two names of one node merged into a self-loop say nothing; drop it.
        if resolved.from_key != resolved.to_key:
            relationships.setdefault(resolved)
    return Extraction(
        references=frozenset(resolve(key) for key in extraction.references),
        relationships=tuple(relationships),
        warnings=extraction.warnings,
    )


class _Collector:
    """Accumulates what ``extract`` finds, de-duplicating in first-seen order."""

    def __init__(self, main: NodeKey | None) -> None:
        self.main = main
        self.references: set[str] = {main.key} if main else set()
        self.relationships: dict[Relationship, None] = {}
        self.warnings: list[ExtractionWarning] = []
        self.noted: set[str] = set()  # keys already warned about

    def reference(self, match: re.Match[str], line: int) -> None:
        namespace, ident = match["ns"], match["id"].rstrip(".")
        if namespace.lower() in _NOT_REFERENCE_SCHEMES or not ident:
            return
        if match["sep"] == "::" and _CODE_PATH_AFTER.match(match.string, match.end()):
            return
        raw = f"{namespace}:{ident}"
        try:
            key = _parse_cached(raw)
        except ValidationError as error:
            self.warn("content", line, match[0], error.message)
            return
        self.references.add(key)
        self.note_keys("content", line, [(raw, key)])

    def prose_line(self, number: int, line: str) -> None:
        for match in _prose_matches(line):
            src, dst = match["src"], match["dst"].rstrip(_TRAILING_PUNCTUATION)
            if not (self._anchors(src) or self._anchors(dst)):
                continue
            keys: list[tuple[str, str]] = []
            try:
                self._add(_build(src, match["edge"], dst, self.main, keys))
            except ValidationError as error:
                self.warn("content", number, match[0], error.message)
            self.note_keys("content", number, keys)

    def item(self, source: WarningSource, line: int, text: str) -> None:
        keys: list[tuple[str, str]] = []
        try:
            self._add(_parse_item(text, self.main, keys))
        except ValidationError as error:
            self.warn(source, line, text, error.message)
        self.note_keys(source, line, keys)

    def warn(self, source: WarningSource, line: int, text: str, reason: str) -> None:
        self.warnings.append(ExtractionWarning(source, line, _excerpt(text), reason))

    def note_keys(self, source: WarningSource, line: int, keys: list[tuple[str, str]]) -> None:
        for raw, key in keys:
            warning = None if raw in self.noted else key_warning(source, line, raw, key)
            if warning is not None:
                self.noted.add(raw)
                self.warnings.append(warning)

    def result(self) -> Extraction:
        return Extraction(
            frozenset(self.references), tuple(self.relationships), tuple(self.warnings)
        )

    def _add(self, rel: Relationship) -> None:
        self.relationships.setdefault(rel)
        self.references.update((rel.from_key, rel.to_key))

    def _anchors(self, endpoint: str) -> bool:
        if _KEY_LIKE.match(endpoint):
            return True
        if self.main is None or ":" in endpoint:
            return False
        try:
            return parse_key(f"{self.main.type}:{endpoint}") == self.main
        except ValidationError:
            return False


def _prose_matches(line: str) -> Iterator[re.Match[str]]:
    # Formats can overlap on one line (an arrow inside a bracket); the earliest, then the
    # first format in _PROSE_FORMS order, wins.
    matches = sorted(
        (m for form in _PROSE_FORMS for m in form.finditer(line)),
        key=lambda m: m.start(),
    )
    taken_until = 0
    for match in matches:
        if match.start() >= taken_until:
            taken_until = match.end()
            yield match


def _parse_item(text: str, main: NodeKey | None, keys: list[tuple[str, str]]) -> Relationship:
    item = text.strip()
    bracket = _ITEM_BRACKET.fullmatch(item)
    if bracket:
        return _build(bracket["src"], bracket["edge"], bracket["dst"], main, keys)
    parts: Sequence[str] = []
    if "->" in item:
        parts = item.split("->")
    elif "|" in item:
        parts = item.split("|")
    if len(parts) != 3:
        raise ValidationError(
            "not a relationship: expected from|edgeType|to, from->edgeType->to "
            "or from -[edgeType]-> to",
            field="relationships",
        )
    return _build(parts[0], parts[1], parts[2], main, keys)


def _build(
    src: str, edge: str, dst: str, main: NodeKey | None, keys: list[tuple[str, str]]
) -> Relationship:
    """The relationship; ``keys`` gets each endpoint as written and as normalized."""
    rel = Relationship(
        _endpoint(src, main, keys), normalize_edge_type(edge), _endpoint(dst, main, keys)
    )
    if rel.from_key == rel.to_key:
        raise ValidationError(f"{rel.from_key} points at itself", field="relationships")
    return rel


def _endpoint(raw: str, main: NodeKey | None, keys: list[tuple[str, str]]) -> str:
    value = raw.strip()
    if not value:
        raise ValidationError("a relationship endpoint is empty", field="relationships")
    if ":" not in value:
        if main is None:
            raise ValidationError(
                f"endpoint {value[:EXCERPT_CHARS]!r} has no namespace "
                "and there is no main node key",
                field="relationships",
            )
        value = f"{main.type}:{value}"
    key = _parse_cached(value)
    keys.append((value, key))
    return key


@functools.lru_cache(maxsize=8192)
def _parse_cached(value: str) -> str:
    # A large document names the same few thousand keys over and over.
    return parse_key(value, field="relationships").key


def _line_starts(content: str) -> list[int]:
    return [0, *(m.end() for m in re.finditer("\n", content))]

"""What extraction reports instead of failing: unreadable items, and keys normalization
changed beyond case and whitespace (distinct spellings may then have become one node)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kenning.domain.ingestion.node_keys import normalize_key

# "contradicts": an id a model named as contradicted that was never listed to it, or an
# answer that stayed invalid (graph extraction's contradiction check; logged).
WarningSource = Literal["content", "relationships", "mainNodeKey", "nodes", "edges", "contradicts"]
EXCERPT_CHARS = 80


@dataclass(frozen=True, slots=True)
class ExtractionWarning:
    """Something that could not be read, or a key normalization changed (``key`` as given,
    ``normalized_key`` as stored); ``line`` counts content lines or input items from 1."""

    source: WarningSource
    line: int
    excerpt: str
    reason: str
    key: str | None = None
    normalized_key: str | None = None


def changed_key(raw: str) -> bool:
    """True when normalization changed ``raw`` beyond case and whitespace: distinct keys
    (``o'brien"$$x``, ``o_brien___x``) may then have become one."""
    light = " ".join(raw.lower().split()).replace("::", ":", 1)
    namespace, sep, ident = light.partition(":")
    return normalize_key(raw) != f"{namespace.strip()}{sep}{ident.strip()}"


def key_warning(
    source: WarningSource, line: int, raw: str, normalized: str
) -> ExtractionWarning | None:
    """The warning for a key normalization changed beyond case and whitespace, or None."""
    if not changed_key(raw):
        return None
    return ExtractionWarning(
        source,
        line,
        excerpt(raw),
        f"key {excerpt(raw)} was stored as {normalized}: other spellings that normalize "
        "the same way are the same node",
        key=raw,
        normalized_key=normalized,
    )


def excerpt(text: str) -> str:
    """``text`` on one line, cut to 80 characters."""
    shown = " ".join(text.split())
    return shown if len(shown) <= EXCERPT_CHARS else shown[: EXCERPT_CHARS - 1] + "…"

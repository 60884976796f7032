"""A subject's names as word sequences: found and replaced in text, stored only as hashes.

A name (``"Zephyrine Quillfeather"``), a node key (``"person:zephyrine-quillfeather"``) or
an alias is split into words (runs of letters and digits), each folded as node keys are
(NFKC, lower case). Text names the subject where the same words follow each other with
nothing but punctuation or space between them, so ``"ZEPHYRINE  quillfeather"`` and
``"person:Zephyrine_Quillfeather"`` match and ``"Zephyrines"`` does not. Each form is kept
as a salted hash of its words (``form_hash``), so a tombstone can match later text without
the database holding the name.

Example: ``NameMatch.of("acme", ["Ann Lee"]).redact("Met ann lee.") == "Met [erased]."``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from kenning.domain.ingestion.node_keys import fold_text

ERASED: Final = "[erased]"

_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> tuple[str, ...]:
    """The folded words of ``text``: ``words("Ann-Lee") == ("ann", "lee")``."""
    return tuple(_WORD.findall(fold_text(text)))


def form_hash(client_id: str, form: tuple[str, ...]) -> str:
    """The stored hash of one form's words, salted with the client (never the words)."""
    return hashlib.sha256(("\x1f".join((client_id, *form))).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class NameMatch:
    """The forms naming one subject in one client, as hashes of their words, and (while the
    names themselves are known, during an erasure) LIKE patterns to find candidate rows."""

    client_id: str
    hashes: frozenset[str]
    lengths: tuple[int, ...]  # the word counts of the forms, longest first
    patterns: tuple[str, ...] = ()

    @classmethod
    def of(cls, client_id: str, names: Iterable[str]) -> NameMatch:
        """The match of plain ``names`` (a name, a key, an alias)."""
        forms = {w for w in map(words, names) if w}
        return cls(
            client_id,
            frozenset(form_hash(client_id, f) for f in forms),
            tuple(sorted({len(f) for f in forms}, reverse=True)),
            tuple(sorted(_like(f) for f in forms)),
        )

    @classmethod
    def stored(cls, client_id: str, hashes: Mapping[str, int]) -> NameMatch:
        """The match of stored tombstones: each form's hash and word count."""
        return cls(client_id, frozenset(hashes), tuple(sorted(set(hashes.values()), reverse=True)))

    @property
    def empty(self) -> bool:
        return not self.hashes

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where the forms occur in ``text``: (start, end) character offsets, in order, the
        longest form winning at each place."""
        if self.empty or not text:
            return []
        found = [(m.start(), m.end(), _fold(m[0])) for m in _WORD.finditer(text)]
        spans: list[tuple[int, int]] = []
        i = 0
        while i < len(found):
            for n in self.lengths:
                if i + n <= len(found) and self._named(found[i : i + n]):
                    spans.append((found[i][0], found[i + n - 1][1]))
                    i += n
                    break
            else:
                i += 1
        return spans

    def _named(self, window: list[tuple[int, int, str]]) -> bool:
        return form_hash(self.client_id, tuple(w for _, _, w in window)) in self.hashes

    def mentions(self, text: str) -> bool:
        """Whether ``text`` names the subject."""
        return bool(self.spans(text))

    def redact(self, text: str) -> str:
        """``text`` with every form replaced by ``[erased]``."""
        spans = self.spans(text)
        if not spans:
            return text
        parts, last = [], 0
        for start, end in spans:
            parts += [text[last:start], ERASED]
            last = end
        parts.append(text[last:])
        return "".join(parts)

    def redact_value(self, value: Any) -> Any:
        """A JSON value with every string in it (keys of objects too) redacted."""
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, list):
            return [self.redact_value(v) for v in value]
        if isinstance(value, dict):
            return {self.redact(str(k)): self.redact_value(v) for k, v in value.items()}
        return value

    def value_mentions(self, value: Any) -> bool:
        """Whether any string of a JSON value names the subject."""
        return bool(self.redact_value(value) != value)


def _fold(word: str) -> str:
    return "".join(words(word)) or word.lower()


def _like(form: tuple[str, ...]) -> str:
    """A case-insensitive LIKE pattern a text naming ``form`` always matches (words are
    letters and digits, so none holds a wildcard)."""
    return "%" + "%".join(form) + "%"

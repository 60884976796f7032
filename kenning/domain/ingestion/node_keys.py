"""Node keys (``type:id``) and edge types: normalization, canonicalization, parsing.

A key is normalized first (case, whitespace, safe characters), then canonicalized (an id
that repeats its namespace loses it). Both steps are idempotent, so a key can be
normalized again anywhere without changing it. Alias resolution needs storage and comes
after these steps, outside this module.

Example: ``parse_key("Order::ORDER_530798957").key == "order:530798957"``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from kenning.domain.errors import ValidationError

MAX_KEY_LENGTH = 512
MAX_NAMESPACE_LENGTH = 64
MAX_EDGE_TYPE_LENGTH = 63

# Characters an id keeps besides letters and digits; everything else becomes "_".
_ID_PUNCTUATION = frozenset(" ._-/@#")
# The namespace becomes a vertex's ``type``, so it is an identifier: no spaces or paths.
_NAMESPACE_PUNCTUATION = frozenset("_-")
_NAMESPACE = re.compile(r"[a-z][a-z0-9_-]*")
_WHITESPACE = re.compile(r"\s+")

_EDGE_TYPE = re.compile(rf"[a-z][a-z0-9_]{{0,{MAX_EDGE_TYPE_LENGTH - 1}}}")
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_ACRONYM_END = re.compile(r"(?<=[A-Z])(?=[A-Z][a-z])")
_EDGE_SEPARATORS = re.compile(r"[\s\-./:]+")
_UNDERSCORES = re.compile(r"_+")
# An id rest that reads as a name or path ("utils.py", "src/x") is not a repeated prefix.
_NAME_LIKE = re.compile(r"[ ./]")


@dataclass(frozen=True, slots=True)
class NodeKey:
    """A parsed, normalized and canonical node key: ``type`` and ``id`` of ``type:id``."""

    type: str
    id: str

    @property
    def key(self) -> str:
        """The key as stored, ``type:id``."""
        return f"{self.type}:{self.id}"

    def __str__(self) -> str:
        return self.key


def normalize_key(raw: str) -> str:
    """Normalize a node key or bare id: ``"User::John  Doe"`` → ``"user:john doe"``."""
    text = _WHITESPACE.sub(" ", _fold(raw)).strip()
    colon = text.find(":")
    if colon < 0:
        return _clean(text, _ID_PUNCTUATION)
    # ``type::id`` (as in ``jira::JERV-123``) spells the same key as ``type:id``.
    rest = colon + 2 if text.startswith("::", colon) else colon + 1
    namespace = _clean(text[:colon].strip(), _NAMESPACE_PUNCTUATION)
    return f"{namespace}:{_clean(text[rest:].strip(), _ID_PUNCTUATION)}"


def canonicalize_key(key: str) -> str:
    """Normalize ``key`` and drop a repeated namespace: ``order:order_5`` → ``order:5``.

    Only an ``_`` (or, before normalization, ``:``) separator is a repeated prefix:
    ``order:order-5`` keeps its id because trackers build ids as ``PROJ-123`` and a wrong
    merge cannot be undone, while a missed one can be fixed with an alias. A rest that
    reads as a file name or path (``file:file_utils.py``) is kept too.
    """
    normalized = normalize_key(key)
    namespace, sep, ident = normalized.partition(":")
    if not sep or not namespace:
        return normalized
    prefix = namespace + "_"
    while ident.startswith(prefix):
        rest = ident[len(prefix) :]
        if not rest or _NAME_LIKE.search(rest):
            break
        ident = rest
    return f"{namespace}:{ident}"


def parse_key(raw: str, *, field: str = "key") -> NodeKey:
    """Parse a node key into its canonical ``NodeKey``; ``ValidationError`` when malformed."""
    key = canonicalize_key(raw)
    namespace, sep, ident = key.partition(":")
    shown = _excerpt(raw)
    if not sep or not namespace:
        raise ValidationError(f"node key {shown} needs a namespace, as in type:id", field=field)
    if not _NAMESPACE.fullmatch(namespace) or len(namespace) > MAX_NAMESPACE_LENGTH:
        raise ValidationError(
            f"node key {shown} needs a namespace of at most {MAX_NAMESPACE_LENGTH} ASCII "
            "letters, digits, '_' or '-' that starts with a letter",
            field=field,
        )
    if not ident:
        raise ValidationError(f"node key {shown} needs an id after the namespace", field=field)
    if len(key) > MAX_KEY_LENGTH:
        raise ValidationError(
            f"node key {shown} is longer than {MAX_KEY_LENGTH} characters", field=field
        )
    return NodeKey(namespace, ident)


def normalize_edge_type(raw: str) -> str:
    """Lower snake case edge type: ``MODIFIED_BY``, ``modifiedBy`` → ``modified_by``."""
    text = raw.strip()
    if not text.isascii():
        raise _bad_edge_type(raw)
    # Split camel humps only in mixed case; ``MODIFIED_BY2X`` is one shouted word.
    if any(c.islower() for c in text):
        text = _ACRONYM_END.sub("_", _CAMEL_HUMP.sub("_", text))
    text = _UNDERSCORES.sub("_", _EDGE_SEPARATORS.sub("_", text).lower()).strip("_")
    # Edge types end up as data in the graph; a strict whitelist keeps them inert anyway.
    if not _EDGE_TYPE.fullmatch(text):
        raise _bad_edge_type(raw)
    return text


def _bad_edge_type(raw: str) -> ValidationError:
    return ValidationError(
        f"edge type {_excerpt(raw)} must be ASCII letters, digits, spaces, '_' or '-', "
        f"start with a letter and be at most {MAX_EDGE_TYPE_LENGTH} characters",
        field="edgeType",
    )


def fold_text(raw: str) -> str:
    """``raw`` as keys compare it: NFKC-folded and lower case (fullwidth letters too)."""
    return _fold(raw)


def _fold(raw: str) -> str:
    # NFKC folds look-alikes (fullwidth letters, ligatures) and lower() may undo NFKC for a
    # few characters, so repeat until stable; two rounds settle every string seen so far.
    text = raw
    for _ in range(4):
        folded = unicodedata.normalize("NFKC", text).lower()
        if folded == text:
            break
        text = folded
    return text


def _clean(text: str, punctuation: frozenset[str]) -> str:
    return "".join(c if c.isalpha() or c.isdecimal() or c in punctuation else "_" for c in text)


def _excerpt(raw: str, limit: int = 80) -> str:
    return repr(raw if len(raw) <= limit else raw[:limit] + "…")

"""Finding nodes by what a person knows of them: a name, part of a key, a typo, a phrase.

``find_nodes`` asks a ``NodeFinder`` for the best matching keys the reader can see, then
reads those nodes through the ``GraphReader`` (one node per key, merged as ``node`` merges
them), so a match shows exactly what ``node(key)`` would.

**Ranking** (computed by the finder, documented here because clients rely on it):

- an exact key (the query read as ``type:id``, aliases resolved) comes first, then an exact
  name: the query equal to the key's id part, ``name`` or ``label`` (case-insensitive);
  both score ``1.0``;
- every other match scores ``0.8 * names + 0.2 * text``, in ``[0, 1)``: ``names`` is the
  best, over the key's id part, ``name`` and ``label``, of the mean of trigram
  ``word_similarity`` (the query is found inside the field) and ``similarity`` (the field is
  no longer than the query), and ``text`` is the ``word_similarity`` of the query inside the
  node's ``description``;
- a node is a candidate when the query's word similarity to its names or its description
  reaches ``WORD_SIMILARITY_THRESHOLD``; ties go to the smaller key.

A key with several visible vertices (one per scope) scores as its best vertex.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.graph.model import GraphReader, NodeView, check_range
from kenning.domain.ingestion.node_keys import normalize_key, parse_key

MAX_QUERY_LENGTH = 200
MAX_FIND_LIMIT = 100
MAX_FIND_TYPES = 32
# Word similarity a candidate needs: "biling svc" ~ "billing-svc" is 0.9, "Alise" ~ "alice"
# 0.5; at 0.3 "checkout" already matched "chen" (three shared trigrams of nine).
WORD_SIMILARITY_THRESHOLD = 0.4
EXACT_SCORE = 1.0
NAMES_WEIGHT = 0.8
TEXT_WEIGHT = 0.2

_TYPE = re.compile(r"[a-z][a-z0-9_-]{0,63}")


class MatchedOn(StrEnum):
    """Which part of the node the query matched best."""

    KEY = "KEY"
    NAME = "NAME"
    TEXT = "TEXT"


@dataclass(frozen=True, slots=True)
class FindNodesQuery:
    """A validated ``findNodes`` request.

    ``exact_key`` is the query read as a canonical key (when it reads as one); ``exact_id``
    the query normalized as a key's id part.
    """

    text: str
    types: tuple[str, ...] | None
    limit: int
    exact_key: str | None
    exact_id: str


@dataclass(frozen=True, slots=True)
class NodeHit:
    """One key the finder matched, with its score (see the module docstring)."""

    key: str
    score: float
    exact: bool
    matched_on: MatchedOn


@dataclass(frozen=True, slots=True)
class NodeMatch:
    """A found node as the reader sees it, with how well it matched."""

    node: NodeView
    score: float
    exact: bool
    matched_on: MatchedOn

    @property
    def label(self) -> str:
        """What a UI shows: the node's name, else its label, else its key's id part."""
        for name in ("name", "label"):
            value = self.node.properties.get(name)
            if isinstance(value, str) and value.strip():
                return value
        return self.node.key.partition(":")[2] or self.node.key


class NodeFinder(Protocol):
    """Ranks the visible nodes matching a query; storage implements it."""

    async def find_nodes(self, reader: Scope, query: FindNodesQuery) -> list[NodeHit]:
        """At most ``query.limit`` keys, best first (one hit per key)."""
        ...


def node_types(raw: Sequence[str] | None) -> tuple[str, ...] | None:
    """Lower-cased, de-duplicated node types; ``None`` when not given (no filter)."""
    if raw is None:
        return None
    if len(raw) > MAX_FIND_TYPES:
        raise TooLargeError(f"at most {MAX_FIND_TYPES} types", field="types")
    types: set[str] = set()
    for item in raw:
        name = item.strip().lower()
        if not _TYPE.fullmatch(name):
            raise ValidationError(
                f"type {item[:40]!r} must be a node type: ASCII letters, digits, '_' or '-', "
                "starting with a letter, at most 64 characters",
                field="types",
            )
        types.add(name)
    return tuple(sorted(types))


def find_query(text: str, types: Sequence[str] | None, limit: int) -> FindNodesQuery:
    """Check a ``findNodes`` request; ``ValidationError`` naming the bad field otherwise.

    Example: ``find_query("billing svc", ["service"], 20).exact_id == "billing svc"``.
    """
    query = " ".join(text.split())
    if not query:
        raise ValidationError("query must not be empty", field="query")
    if len(query) > MAX_QUERY_LENGTH:
        raise TooLargeError(f"query must be at most {MAX_QUERY_LENGTH} characters", field="query")
    check_range(limit, 1, MAX_FIND_LIMIT, "limit")
    return FindNodesQuery(query, node_types(types), limit, _as_key(query), _as_id(query))


def _as_key(query: str) -> str | None:
    if ":" not in query:
        return None
    try:
        return parse_key(query).key
    except ValidationError:
        return None  # not a key; it is still searched as text


def _as_id(query: str) -> str:
    return normalize_key(query.replace(":", " "))


async def find_nodes(
    finder: NodeFinder, graph: GraphReader, reader: Scope, query: FindNodesQuery
) -> list[NodeMatch]:
    """The visible nodes best matching ``query``, best first (see the module docstring)."""
    if query.types == ():
        return []
    hits = await finder.find_nodes(reader, query)
    nodes = await graph.nodes(reader, [hit.key for hit in hits])
    return [
        NodeMatch(nodes[hit.key], hit.score, hit.exact, hit.matched_on)
        for hit in hits
        if hit.key in nodes
    ]

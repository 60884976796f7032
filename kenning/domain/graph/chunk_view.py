"""Read models of chunks: what queries return, independent of GraphQL and SQL, and
``chunks_for``, the read by id every face makes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final, Protocol

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError


@dataclass(frozen=True, slots=True)
class ChunkView:
    """A stored chunk as a reader sees it (no embedding)."""

    id: str
    source_urn: str
    ordinal: int
    kind: str
    scope: Scope
    content: str
    graph_refs: tuple[str, ...]
    knowledge_type: str | None
    info_type: str | None
    tags: tuple[str, ...]
    source_kind: str | None
    connection_id: str | None
    external_id: str | None
    revision: str | None
    metadata: Mapping[str, object] = field(default_factory=dict)
    created_at: datetime | None = None
    # When its source says it was true; and when (and by what) it stopped being current:
    # every edge it is evidence for ended, or a writer said a newer source replaces it.
    observed_at: datetime | None = None
    superseded_at: datetime | None = None
    superseded_by: str | None = None

    @property
    def current(self) -> bool:
        return self.superseded_at is None


class ChunksById(Protocol):
    """Reads chunks by id, only those the reader may see."""

    async def by_ids(self, ids: Sequence[str], reader: Scope) -> dict[str, ChunkView]:
        """The visible chunks among ``ids``, keyed by id."""
        ...


class ChunkReader(ChunksById, Protocol):
    """Reads chunks by id or kind, only those the reader may see."""

    async def by_kind(self, kind: str, reader: Scope, limit: int) -> list[ChunkView]:
        """The newest visible chunks of one kind (no embedding involved)."""
        ...


MAX_CHUNK_IDS: Final = 1000


def check_chunk_ids(ids: Sequence[str]) -> None:
    """At most ``MAX_CHUNK_IDS`` ids per read (``TooLargeError`` naming ``ids``)."""
    if len(ids) > MAX_CHUNK_IDS:
        raise TooLargeError(f"at most {MAX_CHUNK_IDS} ids", field="ids")


async def visible_chunks(
    ids: Sequence[str], reader: Scope, chunks: ChunksById
) -> list[ChunkView | None]:
    """The chunks with these ids in the order asked, ``None`` where none is visible."""
    check_chunk_ids(ids)
    found = await chunks.by_ids(ids, reader)
    return [found.get(chunk_id) for chunk_id in ids]


async def chunks_for(
    caller: CallerScope, ids: Sequence[str], scope: Scope | None, chunks: ChunksById
) -> list[ChunkView | None]:
    """``chunks`` and ``get_chunks``: the chunks with these ids the caller may see (at the
    scope argument, None: the key's own), in the order asked, ``None`` where none is."""
    return await visible_chunks(ids, caller.reading(scope), chunks)

"""An extracted file as ``GraphRequest``s: one per source, the file first, then each e-mail
attachment as its own source ``<message urn>/<attachment name>``.

Each source gets one ``document:`` node (filename, media type, pages, title, notes, the
stored original's id) and one piece per chunk, its location (page, section path, sheet,
slide) in the piece's metadata. An attachment's node has an ``attached_to`` edge to its
message's node whose evidence is the attachment's first chunk; an attachment without text
cannot cite one, so its node records ``attachedTo`` as a property instead. The chunks are
observed when the writer said (``observedAt``), else at the file's own date (an attachment
without one: its message's), else when they are stored.

Example: ``file_graphs(extracted, FileSource("file:mail.eml", "file", (), scope, 3, "f1"))``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.chunking import chunk_count
from kenning.domain.ingestion.graph_items import GraphPiece, GraphRequest
from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord
from kenning.domain.ingestion.source_times import observed
from kenning.domain.sources.files.chunks import chunk_file
from kenning.domain.sources.files.extracted import ExtractedFile

ATTACHED_TO = "attached_to"
DOCUMENT = "document"


@dataclass(frozen=True, slots=True)
class FileSource:
    """Where an extracted file goes: its source URN, kind, tags, scope, priority and the
    stored original it came from."""

    source_urn: str
    kind: str
    tags: tuple[str, ...]
    scope: Scope
    priority: int
    file_id: str
    filename: str | None = None
    observed_at: datetime | None = None  # the writer's: it wins over the file's own date


def document_key(source_urn: str) -> str:
    """The node key of a file's source: ``document:<urn>``, normalised."""
    return parse_key(f"{DOCUMENT}:{source_urn}").key


def file_graphs(extracted: ExtractedFile, source: FileSource) -> list[GraphRequest]:
    """The file's request, then one per attachment (and theirs), messages before attachments."""
    return _graphs(extracted, source, parent=None)


def stored_chunks(requests: list[GraphRequest], chunk_limit: int, up_to: int) -> int:
    """How many chunks ``ingest_graph`` will store of ``requests`` at ``chunk_limit`` (it
    chunks each piece again: a window of a long part becomes several), counted until the
    count passes ``up_to`` (counting 100 MB of text to the end took 5 s)."""
    total = 0
    for piece in (piece for request in requests for piece in request.pieces):
        total += chunk_count(piece.content, limit=chunk_limit)
        if total > up_to:
            break
    return total


def _graphs(
    extracted: ExtractedFile,
    source: FileSource,
    parent: str | None,
    inherited: datetime | None = None,
) -> list[GraphRequest]:
    """``inherited`` is the message's time: an attachment with no date of its own was true
    when the message was sent."""
    when = observed(source.observed_at, extracted.observed_at or inherited)
    requests = [replace(_request(extracted, source, parent), observed_at=when)]
    used: set[str] = set()
    for index, attachment in enumerate(extracted.attachments, start=1):
        name = _attachment_name(attachment.filename, index)
        if name in used:  # two attachments of one name stay two sources
            name = f"{index}-{name}"
        used.add(name)
        child = replace(source, source_urn=f"{source.source_urn}/{name}", filename=name)
        requests.extend(_graphs(attachment.file, child, source.source_urn, when))
    return requests


def _request(extracted: ExtractedFile, source: FileSource, parent: str | None) -> GraphRequest:
    chunks = chunk_file(extracted, source.source_urn)
    pieces = tuple(
        GraphPiece(ref=f"c{c.ordinal}", content=c.content, tags=source.tags, metadata=c.metadata)
        for c in chunks
    )
    key = document_key(source.source_urn)
    properties: dict[str, object] = {
        "sourceUrn": source.source_urn,
        "mediaType": extracted.media_type.value,
        "fileId": source.file_id,
        "chunks": len(chunks),
    }
    for name, value in (("filename", source.filename), ("title", extracted.title)):
        if value:
            properties[name] = value
    if extracted.pages:
        properties["pages"] = extracted.pages
    if extracted.notes:
        properties["notes"] = list(extracted.notes)
    edges: tuple[EdgeRecord, ...] = ()
    if parent is not None:
        if pieces:
            edges = (EdgeRecord(key, ATTACHED_TO, document_key(parent), (pieces[0].ref,)),)
        else:
            properties["attachedTo"] = document_key(parent)
    return GraphRequest(
        source_urn=source.source_urn,
        scope=source.scope,
        kind=source.kind,
        pieces=pieces,
        nodes=(NodeRecord(key, DOCUMENT, properties),),
        edges=edges,
        priority=source.priority,
    )


def _attachment_name(filename: str | None, index: int) -> str:
    name = (filename or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    return name[:255] or f"attachment-{index}"

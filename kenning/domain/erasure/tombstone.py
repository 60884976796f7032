"""Later writes naming an erased subject: redacted, or refused with ``ErasedSubjectError``.

Every ingest of a client is checked against the forms its erasures left (their hashes,
``names.NameMatch``), so a connector re-syncing a document cannot bring the subject back.
Under ``redact`` (the default) the content and metadata come in with the names replaced by
``[erased]``, and a main node, relationship or tag naming the subject is dropped; an
identifier that names it (source URN, external id, superseded source) is refused in either
mode, as a redacted one would be another identity. Under ``reject`` any field naming it is
refused. The error names the field, never the name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass

from kenning.domain.erasure.model import TombstoneMode
from kenning.domain.erasure.names import NameMatch
from kenning.domain.erasure.ports import TombstoneBook
from kenning.domain.errors import ErrorCode, KenningError
from kenning.domain.ingestion.graph_items import GraphPiece, GraphRequest
from kenning.domain.ingestion.request import IngestRequest


class ErasedSubjectError(KenningError):
    """A write names a subject that was erased; ``field`` says where."""

    code = ErrorCode.ERASED_SUBJECT


def _refused(field: str) -> ErasedSubjectError:
    return ErasedSubjectError(f"{field} names an erased subject", field=field)


@dataclass(frozen=True, slots=True)
class Tombstones:
    """The client's tombstones and what a write naming them gets."""

    book: TombstoneBook
    mode: TombstoneMode = TombstoneMode.REDACT

    async def guarded(self, request: IngestRequest) -> IngestRequest:
        """``request`` as it may be stored; ``ErasedSubjectError`` when it may not."""
        names = await self.book.match(request.scope.client_id)
        if names.empty:
            return request
        return guard_request(request, names, self.mode)

    async def guarded_fields(
        self, client_id: str, fields: Mapping[str, object], identifiers: Collection[str] = ()
    ) -> dict[str, object]:
        """``guarded`` for a memory write's fields (session entries, procedures, knowledge)."""
        names = await self.book.match(client_id)
        if names.empty:
            return dict(fields)
        return guard_fields(fields, names, self.mode, identifiers)

    async def guarded_graph(self, request: GraphRequest) -> GraphRequest:
        """``guarded`` for a structured write."""
        names = await self.book.match(request.scope.client_id)
        if names.empty:
            return request
        return guard_graph(request, names, self.mode)


def guard_request(request: IngestRequest, names: NameMatch, mode: TombstoneMode) -> IngestRequest:
    """Apply the tombstones ``names`` to ``request`` under ``mode`` (pure)."""
    identifiers = [
        ("sourceUrn", request.source_urn),
        ("externalId", request.external_id or ""),
        *((f"supersedes[{i}]", urn) for i, urn in enumerate(request.supersedes)),
    ]
    dropped = [
        ("mainNodeKey", request.main_node_key or ""),
        *((f"relationships[{i}]", r) for i, r in enumerate(request.relationships)),
        *((f"tags[{i}]", t) for i, t in enumerate(request.tags)),
    ]
    redacted = [("content", request.content)]
    checked = identifiers if mode is TombstoneMode.REDACT else [*identifiers, *redacted, *dropped]
    for field, value in checked:
        if names.mentions(value):
            raise _refused(field)
    if mode is TombstoneMode.REJECT:
        if names.value_mentions(dict(request.metadata)):
            raise _refused("metadata")
        return request
    main = request.main_node_key
    return dataclasses.replace(
        request,
        content=names.redact(request.content),
        metadata=names.redact_value(dict(request.metadata)),
        main_node_key=None if main and names.mentions(main) else main,
        relationships=tuple(r for r in request.relationships if not names.mentions(r)),
        tags=tuple(t for t in request.tags if not names.mentions(t)),
    )


def guard_graph(request: GraphRequest, names: NameMatch, mode: TombstoneMode) -> GraphRequest:
    """Apply the tombstones ``names`` to a structured write under ``mode`` (pure): pieces
    are redacted, nodes and edges naming the subject dropped (each refused under reject)."""
    if names.mentions(request.source_urn):
        raise _refused("sourceUrn")
    reject = mode is TombstoneMode.REJECT
    pieces = []
    for i, piece in enumerate(request.pieces):
        texts = [piece.content, piece.embedding_text or "", *piece.tags]
        if reject and (
            any(map(names.mentions, texts)) or names.value_mentions(dict(piece.metadata))
        ):
            raise _refused(f"pieces[{i}]")
        pieces.append(_redacted_piece(piece, names))
    nodes = []
    for i, node in enumerate(request.nodes):
        if names.mentions(node.key) or (reject and names.value_mentions(dict(node.properties))):
            if reject:
                raise _refused(f"nodes[{i}]")
            continue
        props, defaults = dict(node.properties), dict(node.defaults)
        nodes.append(
            dataclasses.replace(
                node, properties=names.redact_value(props), defaults=names.redact_value(defaults)
            )
        )
    edges = []
    for i, edge in enumerate(request.edges):
        if names.mentions(edge.from_key) or names.mentions(edge.to_key):
            if reject:
                raise _refused(f"edges[{i}]")
            continue
        edges.append(edge)
    metadata = dict(request.metadata)
    if reject and names.value_mentions(metadata):
        raise _refused("metadata")
    entities = {k: names.redact_value(v) for k, v in metadata.items() if not names.mentions(k)}
    return dataclasses.replace(
        request, pieces=tuple(pieces), nodes=tuple(nodes), edges=tuple(edges), metadata=entities
    )


def _redacted_piece(piece: GraphPiece, names: NameMatch) -> GraphPiece:
    embedding = piece.embedding_text
    return dataclasses.replace(
        piece,
        content=names.redact(piece.content),
        embedding_text=names.redact(embedding) if embedding is not None else None,
        tags=tuple(t for t in piece.tags if not names.mentions(t)),
        metadata=names.redact_value(dict(piece.metadata)),
    )


def guard_fields(
    fields: Mapping[str, object],
    names: NameMatch,
    mode: TombstoneMode,
    identifiers: Collection[str] = (),
) -> dict[str, object]:
    """Apply the tombstones ``names`` to JSON ``fields`` under ``mode`` (pure)."""
    kept: dict[str, object] = {}
    for field, value in fields.items():
        if names.value_mentions(value) and (field in identifiers or mode is TombstoneMode.REJECT):
            raise _refused(field)
        kept[field] = names.redact_value(value)
    return kept

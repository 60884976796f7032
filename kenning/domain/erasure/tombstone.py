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
from dataclasses import dataclass

from kenning.domain.erasure.model import TombstoneMode
from kenning.domain.erasure.names import NameMatch
from kenning.domain.erasure.ports import TombstoneBook
from kenning.domain.errors import ErrorCode, KenningError
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
    checked = identifiers if mode is TombstoneMode.REDACT else [*identifiers, *dropped, *redacted]
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

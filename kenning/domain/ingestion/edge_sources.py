"""What each source says of an edge beyond its text: its own properties, and an assertion
when it gives the edge with no piece of text to cite.

Every stored edge has evidence (an edge left with none is deleted). Text evidence (``TEXT``)
is the ids of the chunks that state it. The design also lets a source give an edge with no
linked piece (an org chart, a code property graph, a structured import): such an edge is
stored with ``ASSERTED`` evidence, the id ``asserted:<32 hex>`` of the source that asserted
it, beside the chunk ids in ``evidenceChunkIds``. The id derives from the source's identity
(scope and URN), so replacing or purging the source removes its assertion as it removes its
chunks, and the edge goes with its last evidence. Confidence stays ``n / (n + 1)`` over all
evidence, assertions included.

On the stored edge, beside ``evidenceChunkIds``:

- ``assertions``: assertion id -> ``{"sourceUrn", "writer", "assertedAt", "observedAt"}``:
  the source, the key that wrote it, when, and when the source says the edge held (its
  ``observedAt``, else the write's time): the assertion's place in the edge's timeline, as a
  chunk's ``observed_at`` is (``timelines``).
- ``sourceProperties``: the same id per source -> ``{"properties": {...}, "observedAt"}``:
  each source's properties kept apart (a later source never overwrites an earlier one's);
  the edge shows the newest by ``observedAt`` (ties: the greatest id).

Example: ``source_mark(Scope("acme"), "org:chart")`` is ``"asserted:"`` and 32 hex digits.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Final

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion.request import source_identity
from kenning.domain.ingestion.rules import MAX_METADATA_BYTES, clean_metadata
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.validity import from_iso, iso

ASSERTED_PREFIX: Final = "asserted:"
ASSERTIONS: Final = "assertions"
SOURCE_PROPERTIES: Final = "sourceProperties"
# The design's name of an edge's linked piece: consumed as evidence, never a property.
LINK: Final = "piece_id"


class EvidenceKind(StrEnum):
    """What supports an edge: chunks of text, or a source's assertion."""

    TEXT = "TEXT"
    ASSERTED = "ASSERTED"


@dataclass(frozen=True, slots=True)
class Assertion:
    """A source that gave an edge with no text: the source, the key that wrote it, when."""

    source_urn: str
    writer: str | None
    asserted_at: datetime | None


def source_mark(scope: Scope, source_urn: str) -> str:
    """The id of a source on the edges it states: its assertion's evidence id and the key of
    its properties."""
    digest = hashlib.sha256(source_identity(scope, source_urn).encode()).hexdigest()
    return f"{ASSERTED_PREFIX}{digest[:32]}"


def evidence_kind(evidence_id: str) -> EvidenceKind:
    """``ASSERTED`` for an assertion's id, ``TEXT`` for a chunk's."""
    return EvidenceKind.ASSERTED if evidence_id.startswith(ASSERTED_PREFIX) else EvidenceKind.TEXT


def stated(
    mark: str,
    properties: Mapping[str, object],
    observed_at: datetime,
    assertion: Assertion | None,
) -> dict[str, object]:
    """The stored form of what one source says of an edge: its properties (when any) and
    its assertion (when it gave no text)."""
    said: dict[str, object] = {}
    if properties:
        entry = {"properties": dict(properties), "observedAt": iso(observed_at)}
        said[SOURCE_PROPERTIES] = {mark: entry}
    if assertion is not None:
        at = iso(assertion.asserted_at) if assertion.asserted_at else None
        record = {
            "sourceUrn": assertion.source_urn,
            "writer": assertion.writer,
            "assertedAt": at,
            "observedAt": iso(observed_at),
        }
        said[ASSERTIONS] = {mark: record}
        # Valid from when the source says it held, as text evidence is from its chunks'.
        said["validFrom"] = iso(observed_at)
    return said


def assertions_of(stored: object) -> tuple[Assertion, ...]:
    """The assertions of a stored ``assertions`` map, by source URN."""
    if not isinstance(stored, Mapping):
        return ()
    found = []
    for record in stored.values():
        if isinstance(record, Mapping) and isinstance(record.get("sourceUrn"), str):
            writer, at = record.get("writer"), record.get("assertedAt")
            found.append(
                Assertion(
                    record["sourceUrn"],
                    writer if isinstance(writer, str) else None,
                    from_iso(at) if isinstance(at, str) else None,
                )
            )
    return tuple(sorted(found, key=lambda a: a.source_urn))


def newest_properties(stored: object) -> Mapping[str, object]:
    """The properties of the source whose ``observedAt`` is the newest (empty when none)."""
    if not isinstance(stored, Mapping):
        return {}
    entries = [
        (str(entry.get("observedAt") or ""), str(mark), entry.get("properties"))
        for mark, entry in stored.items()
        if isinstance(entry, Mapping)
    ]
    if not entries:
        return {}
    _, _, newest = max(entries, key=lambda e: (e[0], e[1]))
    return newest if isinstance(newest, Mapping) else {}


def given_properties(
    properties: object, policy: SecretPolicy, field: str
) -> tuple[str | None, dict[str, object]]:
    """A writer's edge properties: the linked piece (``piece_id``, consumed as evidence) and
    the rest, with the secret policy applied as for node properties (``SensitiveContentError``
    refuses the request). ``ValidationError`` when they are not a small JSON object."""
    if not isinstance(properties, Mapping):
        raise ValidationError("properties must be a JSON object", field=field)
    rest = {str(k): v for k, v in properties.items() if k != LINK}
    link = properties.get(LINK)
    if link is not None and (not isinstance(link, str) or not link.strip()):
        raise ValidationError(f"properties.{LINK} must be a non-empty string", field=field)
    if len(json.dumps(rest, default=str)) > MAX_METADATA_BYTES:
        raise TooLargeError(f"properties exceed {MAX_METADATA_BYTES} characters", field=field)
    return link, clean_metadata(rest, policy, field)

"""The content hash that makes ingestion idempotent.

The hash covers exactly what ends up indexed, in a normalized form, so re-sending the same
knowledge is a duplicate however it is spelled: line endings and trailing whitespace,
tag order and duplicates, metadata key order, key case and relationship format do not
count. Per-run values (request ids, timestamps, priority) are not part of
``IndexedPayload`` and so can never reach the hash.

Metadata is hashed whole, as canonical JSON (sorted keys, no insignificant whitespace,
ASCII escapes). Callers pass only metadata that changes indexing; a value that differs on
every run would make every ingest look new. ``revision`` is left out on purpose: the same
text under a new revision label needs no re-embedding.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from kenning.domain.access.scope import GLOBAL, Scope
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.node_keys import canonicalize_key
from kenning.domain.ingestion.references import parse_relationship

# Bump when the hashed form changes, so old and new hashes can never collide.
HASH_VERSION = 1


@dataclass(frozen=True, slots=True)
class IndexedPayload:
    """Everything about an ingest request that changes what is indexed."""

    source_urn: str
    content: str
    kind: str
    main_node_key: str | None = None
    scope: Scope = GLOBAL
    knowledge_type: str = ""
    info_type: str = ""
    tags: tuple[str, ...] = ()
    relationships: tuple[str, ...] = ()
    metadata: Mapping[str, object] = field(default_factory=dict)
    source_kind: str = ""
    connection_id: str = ""
    external_id: str = ""


def content_hash(payload: IndexedPayload) -> str:
    """The sha256 hex digest of ``payload``'s normalized, indexed form."""
    document = {
        "version": HASH_VERSION,
        "sourceUrn": payload.source_urn,
        "content": normalize_content(payload.content),
        "kind": payload.kind,
        "mainNodeKey": canonicalize_key(payload.main_node_key) if payload.main_node_key else "",
        "scope": [payload.scope.client_id, payload.scope.project_id, payload.scope.group_id],
        "knowledgeType": payload.knowledge_type,
        "infoType": payload.info_type,
        "tags": sorted({tag.strip() for tag in payload.tags if tag.strip()}),
        "relationships": _relationships(payload),
        "metadata": payload.metadata,
        "sourceKind": payload.source_kind,
        "connectionId": payload.connection_id,
        "externalId": payload.external_id,
    }
    try:
        canonical = json.dumps(
            document, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
        )
    except (TypeError, ValueError) as error:
        raise ValidationError(f"metadata is not plain JSON: {error}", field="metadata") from None
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def normalize_content(content: str) -> str:
    """Content with ``\\n`` line endings and no trailing whitespace on any line or at the end."""
    lines = content.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return "\n".join(line.rstrip() for line in lines).rstrip("\n")


def _relationships(payload: IndexedPayload) -> list[str]:
    normalized: set[str] = set()
    for text in payload.relationships:
        try:
            normalized.add(str(parse_relationship(text, payload.main_node_key)))
        except ValidationError:
            # Unreadable items still count, so fixing one re-indexes; "?" keeps them apart
            # from readable ones.
            normalized.add("?" + " ".join(text.split()))
    return sorted(normalized)

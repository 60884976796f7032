"""Validation and cleaning of an ingest request before anything is chunked or embedded."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion import IngestRequest
from kenning.domain.keys import canonicalize_key, normalize_key, parse_key
from kenning.domain.secrets import SecretPolicy, apply_policy, scan
from kenning.domain.sensitive import SensitiveContentError

MAX_CONTENT = 2_000_000
MAX_METADATA_BYTES = 64_000
MAX_RELATIONSHIPS = 2_000
MAX_TAGS = 64
_KIND = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,199}$")
_TAG = re.compile(r"^[^\x00-\x1f]{1,100}$")
_URN = re.compile(r"^[^\x00-\x1f]{1,2048}$")


def validate(request: IngestRequest) -> None:
    """Raise ``ValidationError`` naming the first field that cannot be accepted."""
    if not _URN.match(request.source_urn) or not request.source_urn.strip():
        raise ValidationError("sourceUrn must be 1..2048 printable characters", field="sourceUrn")
    if not _KIND.match(request.kind):
        raise ValidationError(
            "kind must be 1..200 of letters, digits and _ . : / - (starting with a letter or "
            "digit)",
            field="kind",
        )
    if not request.content.strip():
        raise ValidationError("content is empty", field="content")
    if len(request.content) > MAX_CONTENT:
        raise TooLargeError(f"content exceeds {MAX_CONTENT} characters", field="content")
    if len(request.tags) > MAX_TAGS:
        raise TooLargeError(f"tags: at most {MAX_TAGS}", field="tags")
    if not all(_TAG.match(tag) for tag in request.tags):
        raise ValidationError(
            f"tags: at most {MAX_TAGS}, each 1..100 printable characters", field="tags"
        )
    if len(request.relationships) > MAX_RELATIONSHIPS:
        raise TooLargeError(
            f"at most {MAX_RELATIONSHIPS} relationships per request", field="relationships"
        )
    if not 0 <= request.priority <= 9:
        raise ValidationError("priority must be 0..9", field="priority")
    for name, value in (
        ("infoType", request.info_type),
        ("sourceKind", request.source_kind),
        ("connectionId", request.connection_id),
        ("revision", request.revision),
    ):
        if value is not None and not (0 < len(value) <= 200 and _TAG.match(value[:100])):
            raise ValidationError(f"{name} must be 1..200 printable characters", field=name)
    try:
        encoded = json.dumps(request.metadata, sort_keys=True)
    except (TypeError, ValueError) as error:
        raise ValidationError("metadata must be JSON", field="metadata") from error
    if len(encoded.encode()) > MAX_METADATA_BYTES:
        raise TooLargeError(f"metadata exceeds {MAX_METADATA_BYTES} bytes", field="metadata")


def main_node(request: IngestRequest) -> str | None:
    """The canonical main node key, or ``None``; ``ValidationError`` when malformed."""
    if request.main_node_key is None or not request.main_node_key.strip():
        return None
    parse_key(request.main_node_key, field="mainNodeKey")
    return canonicalize_key(normalize_key(request.main_node_key))


def clean_content(content: str, policy: SecretPolicy) -> str:
    """Content with the secret policy applied (raises ``SensitiveContentError`` on reject)."""
    return apply_policy(content, policy)


def clean_metadata(metadata: Mapping[str, object], policy: SecretPolicy) -> dict[str, object]:
    """Metadata with the secret policy applied to every string value, keys included."""

    def walk(value: object) -> object:
        if isinstance(value, str):
            return apply_policy(value, policy)
        if isinstance(value, Mapping):
            return {str(k): walk(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [walk(v) for v in value]
        return value

    findings = scan(json.dumps(metadata, sort_keys=True))
    if findings and policy is SecretPolicy.REJECT:
        error = SensitiveContentError(findings)
        error.field = "metadata"
        raise error
    cleaned = walk(dict(metadata))
    assert isinstance(cleaned, dict)
    return cleaned


def check_relationship_strings(relationships: tuple[str, ...]) -> None:
    """Relationship strings become node keys, so a secret there is always rejected."""
    findings = scan("\n".join(relationships))
    if findings:
        error = SensitiveContentError(findings)
        error.field = "relationships"
        raise error

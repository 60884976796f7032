"""Validation and cleaning of an ingest request before anything is chunked or embedded."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion.node_keys import canonicalize_key, normalize_key, parse_key
from kenning.domain.ingestion.request import IngestRequest
from kenning.domain.ingestion.secrets.findings import (
    Finding,
    SensitiveContentError,
    describe_findings,
)
from kenning.domain.ingestion.secrets.scan import SecretPolicy, apply_policy, scan
from kenning.domain.ingestion.source_connections import ConnectionRegistry, check_connection_use
from kenning.domain.ingestion.validity import checked_observed_at

MAX_CONTENT = 2_000_000
MAX_METADATA_BYTES = 64_000
MAX_RELATIONSHIPS = 2_000
MAX_SUPERSEDES = 100
MAX_TAGS = 64
_KIND = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,199}$")
_TAG = re.compile(r"^[^\x00-\x1f]{1,100}$")
_URN = re.compile(r"^[^\x00-\x1f]{1,2048}$")
_NOT_BLANK = re.compile(r"\S")  # what str.strip keeps: \s is str.isspace


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
    # The length first: ``len`` is free, and no scan or copy of an oversized content holds
    # the GIL (``strip`` copied 25 MB of trailing-space text while the loop waited).
    if len(request.content) > MAX_CONTENT:
        raise TooLargeError(f"content exceeds {MAX_CONTENT} characters", field="content")
    if not _NOT_BLANK.search(request.content):
        raise ValidationError("content is empty", field="content")
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
    _check_supersedes(request)
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


def identifier_fields(request: IngestRequest) -> list[tuple[str, str]]:
    """The fields of ``request`` that name or label (URN, keys, tags, ids), by input name."""
    scope = request.scope
    fields = [
        ("sourceUrn", request.source_urn),
        ("kind", request.kind),
        ("mainNodeKey", request.main_node_key),
        ("infoType", request.info_type),
        ("sourceKind", request.source_kind),
        ("connectionId", request.connection_id),
        ("externalId", request.external_id),
        ("revision", request.revision),
        ("scope.clientId", scope.client_id),
        ("scope.projectId", scope.project_id),
        ("scope.groupId", scope.group_id),
        *((f"tags[{i}]", tag) for i, tag in enumerate(request.tags)),
        *((f"relationships[{i}]", rel) for i, rel in enumerate(request.relationships)),
        *((f"supersedes[{i}]", urn) for i, urn in enumerate(request.supersedes)),
    ]
    return [(name, value) for name, value in fields if value]


def _check_supersedes(request: IngestRequest) -> None:
    if len(request.supersedes) > MAX_SUPERSEDES:
        raise TooLargeError(f"supersedes: at most {MAX_SUPERSEDES} sources", field="supersedes")
    for urn in request.supersedes:
        if not _URN.match(urn) or not urn.strip():
            raise ValidationError(
                "supersedes: each must be 1..2048 printable characters", field="supersedes"
            )
        if urn == request.source_urn:
            raise ValidationError("a source cannot supersede itself", field="supersedes")


def check_identifiers(fields: Sequence[tuple[str, str]]) -> None:
    """Raise ``SensitiveContentError`` naming the first field that holds a credential.

    Identifiers are refused whatever the policy: a redacted URN or key would be another
    identity. One scan covers them all, a field per line.
    """
    if not fields:
        return
    findings = scan("\n".join(value.replace("\n", " ") for _, value in fields), identifier=True)
    if findings:
        name, value = fields[findings[0].line - 1]
        raise refusal(name, scan(value.replace("\n", " "), identifier=True) or findings)


def refusal(field: str, findings: Sequence[Finding]) -> SensitiveContentError:
    """The error refusing ``field``; its message names the field, the kinds and lines only."""
    error = SensitiveContentError(findings)
    error.field = field
    error.message = f"{field} holds credentials: {describe_findings(findings)}"
    error.args = (error.message,)
    return error


# Large text is scanned a segment at a time: each scan is then a short call, so the event
# loop's thread gets the GIL back between segments while a worker thread scans.
SEGMENT_CHARS = 64_000


def clean_content(content: str, policy: SecretPolicy, field: str = "content") -> str:
    """Content with the secret policy applied (raises ``SensitiveContentError`` on reject)."""
    if len(content) <= SEGMENT_CHARS:
        try:
            return apply_policy(content, policy)
        except SensitiveContentError as error:
            raise refusal(field, error.findings) from None
    cleaned: list[str] = []
    found: list[Finding] = []
    for offset, lines, text in segments(content):
        if policy is SecretPolicy.REDACT:
            cleaned.append(apply_policy(text, policy))
            continue
        found += [
            dataclasses.replace(f, line=f.line + lines, start=f.start + offset, end=f.end + offset)
            for f in scan(text)
        ]
    if found:
        raise refusal(field, found)
    return "".join(cleaned) if policy is SecretPolicy.REDACT else content


def segments(content: str) -> Iterator[tuple[int, int, str]]:
    """``content`` in pieces of about ``SEGMENT_CHARS``: (offset, lines before, text).

    Pieces end after a blank line where there is one (a key block or a paragraph stays
    whole), else after a line; a longer line stays whole.
    """
    position, lines, size = 0, 0, len(content)
    while position < size:
        end = position + SEGMENT_CHARS
        if end >= size:
            end = size
        else:
            cut = content.rfind("\n\n", position, end)
            if cut <= position:
                cut = content.rfind("\n", position, end)
            if cut <= position:
                cut = content.find("\n", end)
            end = size if cut < 0 else cut + 1
        text = content[position:end]
        yield position, lines, text
        lines += text.count("\n")
        position = end


def clean_metadata(
    metadata: Mapping[str, object], policy: SecretPolicy, field: str = "metadata"
) -> dict[str, object]:
    """Metadata with the secret policy applied to every string value.

    A key holding a credential is refused whatever the policy; with REJECT the error
    names the value's path (``metadata.deploy.note``).
    """
    if not scan(json.dumps(metadata, sort_keys=True)):
        return dict(metadata)

    def walk(value: object, path: str) -> object:
        if isinstance(value, str):
            if policy is SecretPolicy.REJECT and (findings := scan(value)):
                raise refusal(path, findings)
            return apply_policy(value, policy)
        if isinstance(value, Mapping):
            keys = [(path, str(k)) for k in value]
            check_identifiers(keys)
            return {str(k): walk(v, f"{path}.{k}") for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [walk(v, f"{path}[{i}]") for i, v in enumerate(value)]
        return value

    cleaned = walk(dict(metadata), field)
    assert isinstance(cleaned, dict)
    if policy is SecretPolicy.REJECT:
        # The whole document held one the values alone did not: refuse it whole.
        raise refusal(field, scan(json.dumps(metadata, sort_keys=True)))
    return cleaned


def check_request(request: IngestRequest, policy: SecretPolicy) -> IngestRequest:
    """``request`` as ingest may store it: valid, identifiers free of credentials, content and
    metadata under ``policy`` (REJECT raises, REDACT marks each secret)."""
    validate(request)
    main_node(request)
    check_identifiers(identifier_fields(request))
    return dataclasses.replace(
        request,
        content=clean_content(request.content, policy),
        metadata=clean_metadata(request.metadata, policy),
        observed_at=checked_observed_at(request.observed_at, datetime.now(UTC), "observedAt"),
    )


async def check_write_connection(
    scope: Scope, connection_id: str | None, source_kind: str | None, registry: ConnectionRegistry
) -> None:
    """Refuse a connection that is not registered for the write's scope (a client-wide
    connection serves the whole client, a project's only that project: ``Scope.owns``),
    revoked, or that does not allow ``source_kind``. Another project's connection gets the
    same answer as an unknown one, so its id tells nothing."""
    if connection_id is None:
        return
    found = await registry.get(scope.client_id, connection_id)
    if found is None or not found.spec.scope.owns(scope):
        raise ValidationError(
            f"connection {connection_id!r} is not registered for this scope: register it "
            "with registerConnection first",
            field="connectionId",
        )
    await check_connection_use(scope, connection_id, source_kind, registry)

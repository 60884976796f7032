"""The stored form of a queued request: plain JSON, read back by whichever worker claims it.

The payload's ``"task"`` says what the job does (``tasks.py``); absent, it is an ingest.
``"extraction": "LLM"`` asks for the graph extraction stage (absent: NONE)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.extraction.mode import ExtractionMode
from kenning.domain.ingestion.request import IngestRequest, KnowledgeType
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.validity import from_iso, iso

PAYLOAD_VERSION: Final = 1


def to_payload(
    request: IngestRequest,
    policy: SecretPolicy | None,
    extraction: ExtractionMode = ExtractionMode.NONE,
) -> dict[str, Any]:
    """JSON for ``ingestion_jobs.payload`` (scope and priority live in their own columns)."""
    return {
        "v": PAYLOAD_VERSION,
        **({"extraction": extraction.value} if extraction is ExtractionMode.LLM else {}),
        "secretPolicy": policy.value if policy is not None else None,
        "request": {
            "sourceUrn": request.source_urn,
            "kind": request.kind,
            "content": request.content,
            "mainNodeKey": request.main_node_key,
            "knowledgeType": request.knowledge_type.value if request.knowledge_type else None,
            "infoType": request.info_type,
            "tags": list(request.tags),
            "metadata": dict(request.metadata),
            "sourceKind": request.source_kind,
            "connectionId": request.connection_id,
            "externalId": request.external_id,
            "revision": request.revision,
            "relationships": list(request.relationships),
            **({"observedAt": iso(request.observed_at)} if request.observed_at else {}),
            **({"supersedes": list(request.supersedes)} if request.supersedes else {}),
        },
    }


def from_payload(
    payload: Mapping[str, Any], scope: Scope, priority: int
) -> tuple[IngestRequest, SecretPolicy | None]:
    """The request a job runs and its secret policy override; the job's current priority
    (it may have been moved) is what the embedding calls carry."""
    if payload.get("v") != PAYLOAD_VERSION or not isinstance(payload.get("request"), Mapping):
        raise ValidationError(f"unreadable job payload (version {payload.get('v')!r})")
    data = payload["request"]
    knowledge = data.get("knowledgeType")
    policy = payload.get("secretPolicy")
    request = IngestRequest(
        source_urn=str(data["sourceUrn"]),
        kind=str(data["kind"]),
        content=str(data["content"]),
        scope=scope,
        main_node_key=data.get("mainNodeKey"),
        knowledge_type=KnowledgeType(knowledge) if knowledge else None,
        info_type=data.get("infoType"),
        tags=tuple(data.get("tags") or ()),
        metadata=dict(data.get("metadata") or {}),
        source_kind=data.get("sourceKind"),
        connection_id=data.get("connectionId"),
        external_id=data.get("externalId"),
        revision=data.get("revision"),
        relationships=tuple(data.get("relationships") or ()),
        priority=priority,
        observed_at=from_iso(data["observedAt"]) if data.get("observedAt") else None,
        supersedes=tuple(data.get("supersedes") or ()),
    )
    return request, SecretPolicy(policy) if policy else None


def task_payload(task: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """The payload of a job of another task; ``body`` is what its ``Preparer`` reads.

    Example: ``task_payload("task_outcome", {"outcome": {...}})``."""
    return {"v": PAYLOAD_VERSION, **body, "task": task}


def task_of(payload: Mapping[str, Any]) -> str:
    """The payload's task; ``"ingest"`` when it names none."""
    task = payload.get("task", "ingest")
    if not isinstance(task, str) or not task:
        raise ValidationError(f"unreadable job payload (task {task!r})")
    return task


def extraction_of(payload: Mapping[str, Any]) -> ExtractionMode:
    """Whether the job extracts the graph with a model after storing."""
    value = payload.get("extraction") or ExtractionMode.NONE.value
    try:
        return ExtractionMode(value)
    except ValueError:
        raise ValidationError(f"unreadable job payload (extraction {value!r})") from None


def extract_payload(source_urn: str, model: str) -> dict[str, Any]:
    """The payload of an extraction-only job of one stored source."""
    return task_payload("extract", {"sourceUrn": source_urn, "model": model})


def extract_target(payload: Mapping[str, Any]) -> tuple[str, str]:
    """The source URN and model of an extraction-only job."""
    urn, model = payload.get("sourceUrn"), payload.get("model")
    if not isinstance(urn, str) or not urn or not isinstance(model, str) or not model:
        raise ValidationError("unreadable extraction job payload")
    return urn, model

"""The wire form of a job event (JSON on the Redis channel), version 1.

    {"v": 1, "previous": "QUEUED" | null, "job": {"id", "status", "stage", "lane",
     "priority", "scope": [client, project, group], "sourceUrn", "connectionId",
     "sourceKind", "sourceId", "contentVersion", "attempts", "nextAttemptAt", "lastError",
     "version", "createdAt", "updatedAt", "finishedAt", "queuePosition"}}

Times are ISO 8601 with offset. Readers ignore fields they do not know.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Final

from kenning.domain.access.scope import Scope
from kenning.domain.queue.jobs import Job, JobEvent, JobStage, JobStatus, Lane

WIRE_VERSION: Final = 1


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _parse_time(value: Any) -> datetime | None:
    return datetime.fromisoformat(value) if isinstance(value, str) else None


def job_to_wire(job: Job) -> dict[str, Any]:
    """A job as JSON-ready data."""
    return {
        "id": job.id,
        "status": job.status.value,
        "stage": job.stage.value if job.stage else None,
        "lane": job.lane.value,
        "priority": job.priority,
        "scope": [job.scope.client_id, job.scope.project_id, job.scope.group_id],
        "sourceUrn": job.source_urn,
        "connectionId": job.connection_id,
        "sourceKind": job.source_kind,
        "sourceId": job.source_id,
        "contentVersion": job.content_version,
        "attempts": job.attempts,
        "nextAttemptAt": _time(job.next_attempt_at),
        "lastError": job.last_error,
        "version": job.version,
        "createdAt": _time(job.created_at),
        "updatedAt": _time(job.updated_at),
        "finishedAt": _time(job.finished_at),
        "queuePosition": job.queue_position,
    }


def job_from_wire(data: dict[str, Any]) -> Job:
    """The job of ``job_to_wire``."""
    created = _parse_time(data["createdAt"])
    updated = _parse_time(data["updatedAt"])
    assert created is not None and updated is not None
    return Job(
        id=str(data["id"]),
        status=JobStatus(data["status"]),
        stage=JobStage(data["stage"]) if data.get("stage") else None,
        lane=Lane(data["lane"]),
        priority=int(data["priority"]),
        scope=Scope(*data["scope"]),
        source_urn=data.get("sourceUrn"),
        connection_id=data.get("connectionId"),
        source_kind=data.get("sourceKind"),
        source_id=data.get("sourceId"),
        content_version=data.get("contentVersion"),
        attempts=int(data.get("attempts", 0)),
        next_attempt_at=_parse_time(data.get("nextAttemptAt")),
        last_error=data.get("lastError"),
        version=int(data.get("version", 0)),
        created_at=created,
        updated_at=updated,
        finished_at=_parse_time(data.get("finishedAt")),
        queue_position=data.get("queuePosition"),
    )


def encode_event(event: JobEvent) -> str:
    """The message published for ``event``."""
    previous = event.previous.value if event.previous else None
    return json.dumps({"v": WIRE_VERSION, "previous": previous, "job": job_to_wire(event.job)})


# Published when visibility changed without a job changing (a project moved to another
# group): every live queue feed re-reads its snapshot, with the new groups.
RESYNC_MESSAGE = json.dumps({"v": WIRE_VERSION, "resync": True})


def decode_event(message: str | bytes) -> JobEvent | None:
    """The event in a message, or ``None`` for a message of another version or shape."""
    try:
        data = json.loads(message)
        if data.get("v") != WIRE_VERSION:
            return None
        previous = JobStatus(data["previous"]) if data.get("previous") else None
        return JobEvent(job=job_from_wire(data["job"]), previous=previous)
    except (ValueError, KeyError, TypeError, AttributeError):
        return None

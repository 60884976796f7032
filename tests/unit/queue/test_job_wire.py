"""Job events and payloads survive their JSON forms unchanged."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.request import IngestRequest, KnowledgeType
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.queue.events import decode_event, encode_event
from kenning.domain.queue.jobs import IngestionIdentity, Job, JobEvent, JobStage, JobStatus, Lane
from kenning.domain.queue.payload import from_payload, to_payload

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)


def test_event_round_trip() -> None:
    job = Job(
        id="j1", status=JobStatus.RUNNING, stage=JobStage.EMBEDDING, lane=Lane.BULK,
        priority=4, scope=Scope("acme", "web", "g"), source_urn="urn:x", connection_id="c1",
        source_kind="drive", source_id="f1", content_version="e1", attempts=2,
        next_attempt_at=None, last_error="ollama answered 503", version=7, created_at=NOW,
        updated_at=NOW, finished_at=None, queue_position=3,
    )  # fmt: skip
    event = JobEvent(job, JobStatus.QUEUED)
    assert decode_event(encode_event(event)) == event


def test_foreign_or_broken_messages_are_ignored() -> None:
    assert decode_event(b"not json") is None
    assert decode_event('{"v": 99}') is None
    assert decode_event('{"v": 1, "job": {}}') is None


def test_payload_round_trip_with_the_jobs_current_priority() -> None:
    request = IngestRequest(
        source_urn="urn:doc", kind="note", content="hello", scope=Scope("acme"),
        main_node_key="doc:1", knowledge_type=KnowledgeType.FACT, tags=("a",),
        metadata={"k": [1, 2]}, source_kind="drive", connection_id="c", external_id="e",
        revision="r", relationships=("a|rel|b",), priority=5,
    )  # fmt: skip
    back, policy = from_payload(to_payload(request, SecretPolicy.REDACT), Scope("acme"), 1)
    assert policy is SecretPolicy.REDACT
    assert back == dataclasses.replace(request, priority=1)


def test_identity_keys_are_digests_of_source_and_version() -> None:
    one = IngestionIdentity("drive", "f1", "v1")
    assert one.key != IngestionIdentity("drive", "f1", "v2").key
    assert one.source_key == IngestionIdentity("drive", "f1", "v2").source_key
    assert len(one.key) == 64

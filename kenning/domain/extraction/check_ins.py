"""Check-ins: the audit record of every ``structureKnowledge`` call that reached the model.

A check-in keeps what went in (the text after the secret policy, or only its SHA-256 when
``KENNING_CHECK_IN_KEEP_TEXT`` is false; the hints), what came out (the structured output),
which model and prompt version made it, every attempt with its validation error and
duration, the total duration, who called and at which scope, and the source it was loaded
as. ``CheckInStore`` keeps them (``kenning.storage.extraction.check_ins``); readers list
them newest first, scoped as every read is.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Final, Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.models.ports import Attempt

MAX_PAGE: Final = 100


class CheckInStatus(StrEnum):
    """How a structuring call ended: loaded, a dry run (nothing loaded), or an answer that
    stayed invalid (or that the load refused)."""

    LOADED = "LOADED"
    DRY_RUN = "DRY_RUN"
    INVALID = "INVALID"


@dataclass(frozen=True, slots=True)
class NewCheckIn:
    """A check-in to store; ``input_text`` is None when only the hash is kept."""

    id: str
    scope: Scope
    caller: str
    status: CheckInStatus
    input_text: str | None
    input_hash: str
    hints: str | None
    output: Mapping[str, Any] | None
    model: str
    prompt_version: str
    attempts: tuple[Attempt, ...]
    duration_ms: float
    source_urn: str | None = None


@dataclass(frozen=True, slots=True)
class CheckIn:
    """A stored check-in, with the time it was stored."""

    record: NewCheckIn
    created_at: datetime

    @property
    def id(self) -> str:
        return self.record.id


@dataclass(frozen=True, slots=True)
class CheckInPage:
    """Check-ins newest first; pass ``end_cursor`` as ``after`` for the next page."""

    check_ins: tuple[CheckIn, ...]
    end_cursor: str | None
    has_next_page: bool


@dataclass(frozen=True, slots=True)
class CheckInInput:
    """What a check-in records of the request, before the model answers."""

    text: str
    hints: str | None
    scope: Scope
    caller: str
    keep_text: bool = True
    id: str = field(default_factory=lambda: str(uuid.uuid4()))


def text_hash(text: str) -> str:
    """The SHA-256 (hex) a check-in keeps of its input text."""
    return hashlib.sha256(text.encode()).hexdigest()


def check_in(
    given: CheckInInput,
    status: CheckInStatus,
    *,
    model: str,
    prompt_version: str,
    attempts: tuple[Attempt, ...],
    duration_ms: float,
    output: Mapping[str, Any] | None = None,
    source_urn: str | None = None,
) -> NewCheckIn:
    """The record of one call; the text itself only when ``given.keep_text``."""
    return NewCheckIn(
        id=given.id,
        scope=given.scope,
        caller=given.caller,
        status=status,
        input_text=given.text if given.keep_text else None,
        input_hash=text_hash(given.text),
        hints=given.hints,
        output=output,
        model=model,
        prompt_version=prompt_version,
        attempts=attempts,
        duration_ms=duration_ms,
        source_urn=source_urn,
    )


def check_page_size(first: int) -> None:
    """``ValidationError`` unless ``first`` is 1..``MAX_PAGE``."""
    if not 1 <= first <= MAX_PAGE:
        raise ValidationError(f"first must be 1..{MAX_PAGE}", field="first")


class CheckInStore(Protocol):
    """Where check-ins are kept."""

    async def add(self, check_in: NewCheckIn) -> CheckIn:
        """Store one check-in; returns it with its time."""
        ...

    async def page(self, reader: Scope, first: int, after: str | None) -> CheckInPage:
        """The check-ins ``reader`` may see, newest first, after the cursor ``after``
        (``ValidationError`` naming ``after`` when it is not a cursor of this list)."""
        ...

"""Error members of a model call: an answer that stayed invalid, or a model unavailable."""

from __future__ import annotations

import strawberry

from kenning.schema.errors import Error


@strawberry.type(
    description="One call of the model: how long it took and why its answer was "
    "refused (null when it was accepted)."
)
class ModelAttempt:
    number: int
    duration_ms: float
    error: str | None


@strawberry.type(
    description="The model's answer did not match the required shape after every retry; "
    "nothing was loaded. `attempts` holds each attempt's validation error, `checkInId` the "
    "INVALID check-in that records it."
)
class ModelOutputInvalid(Error):
    model: str
    attempts: list[ModelAttempt]
    check_in_id: strawberry.ID | None


@strawberry.type(
    description="The model backend could not answer (busy, unreachable, unknown model); "
    "nothing was stored. Retry later when `retryable`, after `retryAfter` seconds if given."
)
class ModelUnavailable(Error):
    retryable: bool
    retry_after: float | None

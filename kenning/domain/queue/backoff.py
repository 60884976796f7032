"""When to try a job again: operational failures back off 5 s, 10 s, 20 s, ... up to 300 s.

Operational failures (a busy or unreachable backend) are retried, because the work is valid
and the backend will come back; anything else is a fact about the input and ends the job
FAILED. A model that does not answer is waited for visibly (``WAITING_FOR_MODEL``) and at
most ``JobDeps.model_wait_seconds`` (KENNING_MODEL_WAIT_HOURS): then ``gave_up_waiting``
says why the job ends FAILED.
"""

from __future__ import annotations

from datetime import datetime
from typing import Final

from kenning.domain.embedding import EmbeddingError
from kenning.domain.models.ports import ModelCallError
from kenning.domain.queue.jobs import Job, OperationalError

FIRST_DELAY: Final = 5.0
MAX_DELAY: Final = 300.0


def backoff_delay(failures: int, retry_after: float | None = None) -> float:
    """Seconds to wait after the ``failures``-th operational failure (1-based).

    A backend's ``Retry-After`` lengthens the wait, never shortens it; both are capped.
    Example: ``[backoff_delay(n) for n in (1, 2, 3)] == [5.0, 10.0, 20.0]``.
    """
    if failures < 1:
        raise ValueError("failures counts from 1")
    # 2**7 * 5 > 300 already, so larger exponents never need computing.
    delay = min(FIRST_DELAY * float(2 ** min(failures - 1, 7)), MAX_DELAY)
    if retry_after is not None and retry_after > delay:
        delay = min(retry_after, MAX_DELAY)
    return delay


def is_operational(error: BaseException) -> bool:
    """True for failures that say nothing about the job: busy or unreachable backends."""
    if isinstance(error, EmbeddingError | ModelCallError):
        return error.transient
    return isinstance(error, OperationalError | TimeoutError | ConnectionError)


def retry_after_of(error: BaseException) -> float | None:
    """The wait a backend asked for, if it said."""
    if isinstance(error, EmbeddingError | ModelCallError) and error.retry_after is not None:
        return float(error.retry_after)
    return None


def waits_for_model(error: BaseException) -> bool:
    """True when the job's model did not answer (busy or unreachable), so the job waits."""
    return isinstance(error, ModelCallError) and error.transient


def gave_up_waiting(job: Job, error: BaseException, wait: float, now: datetime) -> str | None:
    """Why the job ends FAILED rather than wait on: its model has not answered for ``wait``
    seconds since it first failed it; ``None`` while it may wait on.

    Example: a job waiting since 09:00 with ``wait`` one hour gives up on a failure at 10:00.
    """
    since = job.waiting_for_model_since
    if not waits_for_model(error) or since is None or (now - since).total_seconds() < wait:
        return None
    hours = wait / 3600
    message = error.message if isinstance(error, ModelCallError) else str(error)
    return f"MODEL_UNAVAILABLE: gave up after waiting {hours:g} h for the model: {message}"

"""Which backend failures pass on their own: the line between a transient ``ModelCallError``
(the queue backs off) and a permanent one, for every adapter of the port.

Ollama says it is overloaded with 503 and "server busy, please try again.  maximum pending
requests exceeded"; a runner still loading says "try again"; proxies in front of it answer
408, 429, 502 or 504. Anything else (404 unknown model, 400 bad request) will not pass.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

TRANSIENT_STATUSES: Final = frozenset({408, 429, 502, 503, 504})
TRANSIENT_MESSAGES: Final = ("server busy", "try again")


def is_transient(status: int, message: str) -> bool:
    """True for answers that may pass if asked again later.

    Example: ``is_transient(200, "server busy, please try again")`` is True.
    """
    lowered = message.lower()
    return status in TRANSIENT_STATUSES or any(marker in lowered for marker in TRANSIENT_MESSAGES)


def error_in(body: Any) -> str | None:
    """The message of an Ollama error answer (``{"error": ...}``), else None."""
    if isinstance(body, dict) and "error" in body:
        return str(body["error"])
    return None


def answer_json(content: bytes) -> Any:
    """An Ollama answer body as JSON. A failure after a stream started arrives as a last
    NDJSON line ``{"error": ...}`` under status 200: that line is returned. None when the
    body is neither."""
    try:
        return json.loads(content)
    except ValueError:  # also covers a body that is not UTF-8
        pass
    lines = content.strip().splitlines()
    try:
        last = json.loads(lines[-1]) if lines else None
    except ValueError:
        return None
    return last if error_in(last) is not None else None


def retry_after_seconds(value: str | None) -> float | None:
    """A ``Retry-After`` header in seconds; None when absent or not delta-seconds.

    An HTTP date is rare from Ollama or the router and is not read.
    """
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None

"""One access-log line and one metrics observation per GraphQL operation.

The line (event ``graphql.operation``) has the operation's name and type, its duration,
its outcome (``ok`` or the first error's ``extensions.code``) and, through the log
formatter, the request id. A subscription is one operation: logged when it ends.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

from strawberry.extensions import SchemaExtension

logger = logging.getLogger("kenning.access")

# (operation name, type, outcome, seconds)
OperationObserver = Callable[[str | None, str, str, float], None]


def _outcome(result: object) -> str | None:
    errors = getattr(result, "errors", None)
    if not errors:
        return None
    extensions = getattr(errors[0], "extensions", None) or {}
    return str(extensions.get("code", "error"))


class OperationLog(SchemaExtension):
    """Listed before ``ErrorShaping``, so it sees the codes errors end up with."""

    def __init__(self, *, observe: OperationObserver | None = None) -> None:
        self._observe = observe
        self._failed: str | None = None

    def on_operation(self) -> Iterator[None]:
        started = time.perf_counter()
        self._failed = None
        yield
        seconds = time.perf_counter() - started
        context = self.execution_context
        outcome = self._failed or _outcome(context.result) or "ok"
        try:
            kind = context.operation_type.value
        except RuntimeError:  # the document did not parse, or names no operation
            kind = "unknown"
        name = context.operation_name
        logger.info(
            "graphql.operation",
            extra={
                "operation": name,
                "type": kind,
                "outcome": outcome,
                "duration_ms": round(seconds * 1000, 2),
            },
        )
        if self._observe is not None:
            self._observe(name, kind, outcome, seconds)

    def on_stream_result(self, result: Any) -> Iterator[None]:
        yield None
        # After the inner extensions (ErrorShaping) ran: the codes are the client's.
        self._failed = self._failed or _outcome(result)

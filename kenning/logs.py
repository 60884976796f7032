"""Structured logging: one JSON object per line with a stable ``event`` name (or one plain
line, ``KENNING_LOG_FORMAT=text``), for Kenning's own lines and uvicorn's and the libraries'
alike: one format per process."""

from __future__ import annotations

import json
import logging
import sys
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

request_id: ContextVar[str | None] = ContextVar("kenning_request_id", default=None)

# Record attributes that are no field of the event; uvicorn's ``color_message`` repeats the
# message with terminal colour codes.
_RESERVED = set(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "color_message"}


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    """The fields a record carries beyond the standard ones (``extra=``)."""
    return {
        key: value
        for key, value in record.__dict__.items()
        if key not in _RESERVED and not key.startswith("_")
    }


class JsonFormatter(logging.Formatter):
    """Formats a record as JSON: time, level, logger, event, request id and extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        payload: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
        }
        rid = request_id.get()
        if rid:
            payload["request_id"] = rid
        payload.update(_fields(record))
        if record.exc_info:
            payload["exc"] = self.formatException(record.exc_info)
        return json.dumps(payload, default=str)


class TextFormatter(logging.Formatter):
    """One plain line: time, level, logger, event, then the fields as ``key=value``."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        line = super().formatMessage(record)
        rid = request_id.get()
        fields = ({"request_id": rid} if rid else {}) | _fields(record)
        return " ".join([line, *(f"{key}={value}" for key, value in fields.items())])


def configure_logging(level: str = "INFO", *, as_json: bool = True) -> None:
    """Send the root logger to stderr, as JSON lines unless told otherwise."""
    handler = logging.StreamHandler(sys.stderr)
    if as_json:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    # httpx logs every request at INFO: one line per proxied model call and health probe.
    for noisy in ("uvicorn.access", "httpx"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    # alembic names each of its plugins as it loads them, at every schema check.
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
    # python-multipart warns of every malformed body a client sends; the 400 names it.
    logging.getLogger("python_multipart").setLevel(logging.ERROR)


def log_event(
    logger: logging.Logger, event: str, /, level: int = logging.INFO, **fields: Any
) -> None:
    """Log ``event`` (a stable dotted name such as ``ingestion.indexed``) with fields."""
    logger.log(level, event, extra=fields)

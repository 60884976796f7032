"""NDJSON framing: split upstream chunks into lines, spot Ollama's ``{"error": ...}`` lines."""

from __future__ import annotations

import json


class LineSplitter:
    """Feed raw chunks, get whole lines (newline kept); nothing is held beyond one line."""

    def __init__(self) -> None:
        self._partial = b""

    def feed(self, chunk: bytes) -> list[bytes]:
        data = self._partial + chunk
        cut = data.rfind(b"\n") + 1
        self._partial = data[cut:]
        if not cut:
            return []
        return data[:cut].splitlines(keepends=True)

    def flush(self) -> bytes:
        tail, self._partial = self._partial, b""
        return tail


def error_message(line: bytes) -> str | None:
    """The message of an ``{"error": ...}`` line, None for a normal line."""
    if b'"error"' not in line:
        return None
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    if isinstance(obj, dict) and "error" in obj and "done" not in obj:
        return str(obj["error"])
    return None


def error_line(message: str) -> bytes:
    return json.dumps({"error": message}).encode() + b"\n"


def message_of(body: bytes) -> str:
    """The ``error`` of an Ollama error body, or the body itself."""
    try:
        obj = json.loads(body)
    except ValueError:
        return body.decode(errors="replace")
    return str(obj.get("error", obj)) if isinstance(obj, dict) else str(obj)

"""Multipart bodies written byte by byte, so a test can send what no client library would:
a part without a name, headers thousands of characters long, a thousand parts."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

BOUNDARY = "kenning-test-boundary"
CONTENT_TYPE = f"multipart/form-data; boundary={BOUNDARY}"


@dataclass(frozen=True)
class Part:
    """One part: its Content-Disposition parameters, extra headers and body."""

    disposition: str
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)

    def encoded(self) -> bytes:
        lines = [f"--{BOUNDARY}", f"Content-Disposition: form-data{self.disposition}"]
        lines += [f"{name}: {value}" for name, value in self.headers.items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + self.body + b"\r\n"


def field_part(name: str, text: str) -> Part:
    """A text part (``operations``, ``map``)."""
    return Part(f'; name="{name}"', text.encode())


def file_part(name: str, data: bytes = b"hello", filename: str = "a.txt") -> Part:
    """A file part."""
    return Part(f'; name="{name}"; filename="{filename}"', data, {"Content-Type": "text/plain"})


def json_part(name: str, value: Any) -> Part:
    return field_part(name, json.dumps(value))


def body(*parts: Part) -> bytes:
    """The parts with their closing boundary."""
    return b"".join(part.encoded() for part in parts) + f"--{BOUNDARY}--\r\n".encode()

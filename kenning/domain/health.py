"""The state of the parts Kenning runs on, and what it means for the server as a whole."""

from __future__ import annotations

from dataclasses import dataclass

# Without these the server cannot do its job; without the others it works, degraded.
REQUIRED_PARTS = frozenset({"postgres", "age", "pgvector", "workers"})
# How an error message names a part that is down.
PART_NAMES = {"postgres": "PostgreSQL", "redis": "Redis", "embedder": "the embedder"}


@dataclass(frozen=True, slots=True)
class PartState:
    """One part: up or not, its version when known, and ``ok`` or why it is not working (a
    working part may add what to fix: ``ok, but …``)."""

    name: str
    up: bool
    version: str | None = None
    detail: str = "ok"


def overall(parts: list[PartState]) -> str:
    """``ok``, ``degraded`` (a part is down but the API works) or ``down``.

    Example: ``overall([PartState("redis", False)]) == "degraded"``.
    """
    failing = {part.name for part in parts if not part.up}
    if failing & REQUIRED_PARTS:
        return "down"
    return "degraded" if failing else "ok"

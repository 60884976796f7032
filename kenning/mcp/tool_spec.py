"""``ToolSpec``: one tool as a tools module declares it, for ``server.py`` to register."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool's name, its function (whose parameters make the JSON schema), what it tells
    the model, and the hints a client shows its user: whether it only reads, may remove
    what exists (``destructive``), changes nothing more when repeated (``idempotent``), and
    reaches beyond Kenning, e.g. a crawl or repository URL (``open_world``)."""

    name: str
    function: Callable[..., Any]
    description: str
    read_only: bool
    destructive: bool = False
    idempotent: bool | None = None  # None: as read_only (a read changes nothing)
    open_world: bool = False

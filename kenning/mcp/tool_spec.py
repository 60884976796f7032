"""``ToolSpec``: one tool as a tools module declares it, for ``server.py`` to register."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool's name, its function (whose parameters make the JSON schema), what it tells
    the model, and whether it only reads."""

    name: str
    function: Callable[..., Any]
    description: str
    read_only: bool

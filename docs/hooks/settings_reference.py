"""The settings page, written from ``kenning.settings.Settings`` at every docs build.

Each field of ``Settings`` (and of the router's ``RouterSettings``) becomes a row with its
variable, type, default and bounds as the code declares them; its meaning comes from the
row of a hand-written table in the docs that names the variable in its first cell
(``reference/configuration.md``, ``router.md``). A field no such row names stops the build
with ``UndocumentedSettings``, so a new setting cannot ship without its meaning.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Any

from pydantic import TypeAdapter
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from kenning.router.config import RouterSettings
from kenning.settings import Settings

PAGE = "reference/settings.md"
_VARIABLE = re.compile(r"`(KENNING_[A-Z0-9_]+)`")
_BOUNDS = (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<"))
_LENGTHS = (("min_length", "length ≥"), ("max_length", "length ≤"))


class UndocumentedSettings(Exception):
    """Settings fields whose variable no table row of the docs names."""

    def __init__(self, variables: list[str]) -> None:
        super().__init__(
            "no table row in docs/ names these settings (add one to "
            f"docs/reference/configuration.md): {', '.join(variables)}"
        )
        self.variables = variables


def setting_fields() -> list[tuple[str, FieldInfo]]:
    """``(variable, field)`` of every setting, in the order the code declares them."""
    fields = [(f"KENNING_{n.upper()}", f) for n, f in Settings.model_fields.items()]
    fields = [(v, f) for v, f in fields if v != "KENNING_ROUTER"]
    router = RouterSettings.model_config.get("env_prefix", "KENNING_ROUTER_")
    return fields + [(f"{router}{n.upper()}", f) for n, f in RouterSettings.model_fields.items()]


def meanings(pages: Iterable[str]) -> dict[str, str]:
    """Variable → the last cell of the first table row whose first cell names it."""
    found: dict[str, str] = {}
    for page in pages:
        for line in page.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            if not line.startswith("|") or len(cells) < 2:
                continue
            for variable in _VARIABLE.findall(cells[0]):
                found.setdefault(variable, cells[-1])
    return found


def _default(field: FieldInfo) -> Any:
    if field.default_factory is not None:
        return field.default_factory()  # type: ignore[call-arg]
    return None if field.default is PydanticUndefined else field.default


def _shown(value: Any) -> str:
    if isinstance(value, Enum):
        value = value.value
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, list | dict) and not value:
        return "empty"
    if isinstance(value, list | dict):
        return f"`{json.dumps(TypeAdapter(Any).dump_python(value, mode='json'))}`"
    return f"`{value}`"


def _type(field: FieldInfo) -> str:
    shown = str(field.annotation).replace("typing.", "")
    shown = re.sub(r"<(?:class|enum) '([\w.]+)'>", lambda m: m[1].rsplit(".", 1)[-1], shown)
    shown = re.sub(r"\b(?:[a-z_]+\.)+([A-Z]\w*)", r"\1", shown)
    return f"`{shown}`".replace("|", "\\|")


def _bounds(field: FieldInfo) -> str:
    shown = []
    for item in field.metadata:
        for name, sign in (*_BOUNDS, *_LENGTHS):
            if (bound := getattr(item, name, None)) is not None:
                shown.append(f"{sign} {bound}")
    return ", ".join(shown)


def settings_page(documented: Mapping[str, str]) -> str:
    """The settings page; ``documented`` maps variables to their meaning (see ``meanings``)."""
    fields = setting_fields()
    missing = [variable for variable, _ in fields if variable not in documented]
    if missing:
        raise UndocumentedSettings(missing)
    lines = [
        "# Settings",
        "",
        "Every setting Kenning reads, generated from `kenning.settings.Settings` and the",
        "router's `RouterSettings` at every build of these pages: the variable, its type, its",
        "default and its bounds as the code declares them, and its meaning as",
        "[Configuration](configuration.md) and [Model router](../router.md) explain it.",
        f"There are {len(fields)}.",
        "",
        "| variable | type | default | bounds | meaning |",
        "|---|---|---|---|---|",
    ]
    for variable, field in fields:
        default = _shown(_default(field))
        lines.append(
            f"| `{variable}` | {_type(field)} | {default} | {_bounds(field)} "
            f"| {documented[variable]} |"
        )
    return "\n".join([*lines, ""])

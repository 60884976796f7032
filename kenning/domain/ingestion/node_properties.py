"""A node's properties over time: what changed between two states of a vertex, who stated
the new values, and the checks a direct correction (``updateNode``) passes.

Every write that changes a vertex's properties (an ingest's nodes, metadata and knowledge
files, a model's descriptions, ``updateNode``) keeps each value it replaces in the node's
history; ``property_changes`` says which names changed. Names are compared by their JSON,
so ``1`` and ``true`` differ, and the scope and identity properties (``RESERVED``) are never
a property of history.

Example::

    property_changes({"tier": 1, "team": "a"}, {"tier": 2})
    # (PropertyChange("team", "a", None, removed=True), PropertyChange("tier", 1, 2))
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion.rules import MAX_METADATA_BYTES, clean_metadata
from kenning.domain.ingestion.secrets.scan import SecretPolicy

RESERVED: Final = frozenset({"key", "type", "client", "project", "group"})
MAX_NAME: Final = 200
MAX_NAMES: Final = 100
_SCALARS = (str, bool, int, float)


@dataclass(frozen=True, slots=True)
class NodeProvenance:
    """Who states the properties a write carries: a source (by its URN) and when it says
    they held (None: when they are stored)."""

    source_urn: str
    observed_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class PropertyChange:
    """One property of one vertex that changed: its value before (None when it had none)
    and after (None when ``removed``)."""

    name: str
    old: object = None
    new: object = None
    removed: bool = False


@dataclass(frozen=True, slots=True)
class PropertyPatch:
    """A checked correction: the values to set and the names to remove."""

    set: Mapping[str, object]
    unset: tuple[str, ...]


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def property_changes(
    old: Mapping[str, object], new: Mapping[str, object]
) -> tuple[PropertyChange, ...]:
    """The properties whose value differs between ``old`` and ``new``, by name."""
    found = []
    for name in sorted((set(old) | set(new)) - RESERVED):
        if name not in new:
            found.append(PropertyChange(name, old[name], None, removed=True))
        elif name not in old or _json(old[name]) != _json(new[name]):
            found.append(PropertyChange(name, old.get(name), new[name]))
    return tuple(found)


def check_name(name: object, field: str) -> str:
    """A property name a caller may set or remove: 1..200 printable characters with no
    space around them, and none of ``RESERVED``."""
    if (
        not isinstance(name, str)
        or not name
        or len(name) > MAX_NAME
        or name != name.strip()
        or any(ord(c) < 32 or ord(c) == 127 for c in name)
    ):
        raise ValidationError(
            f"property names must be 1..{MAX_NAME} printable characters with no space around them",
            field=field,
        )
    if name in RESERVED:
        raise ValidationError(
            f"property {name!r} is reserved ({', '.join(sorted(RESERVED))})", field=field
        )
    return name


def _check_value(name: str, value: object) -> None:
    """A string, number or boolean, or a list of them (what a node property holds)."""

    def scalar(item: object) -> bool:
        return isinstance(item, _SCALARS) and not (
            isinstance(item, float) and not math.isfinite(item)
        )

    if scalar(value) or (isinstance(value, list) and all(scalar(item) for item in value)):
        return
    hint = "; to remove it, name it in unset" if value is None else ""
    raise ValidationError(
        f"property {name!r} must be a string, number or boolean, or a list of them{hint}",
        field=f"set.{name}",
    )


def check_patch(values: object, unset: Sequence[str] | None, policy: SecretPolicy) -> PropertyPatch:
    """``set``/``unset`` of ``updateNode`` checked: at least one name, at most 100, valid
    names and values, no name in both, at most 64,000 bytes, credentials handled as in
    node properties (``policy``)."""
    if values is None:
        values = {}
    if not isinstance(values, Mapping):
        raise ValidationError("set must be a JSON object of property names to values", field="set")
    removed = tuple(dict.fromkeys(unset or ()))
    if not values and not removed:
        raise ValidationError("give properties to set or names to unset", field="set")
    if len(values) + len(removed) > MAX_NAMES:
        raise TooLargeError(f"at most {MAX_NAMES} properties per update", field="set")
    for name, value in values.items():
        _check_value(check_name(name, "set"), value)
    for index, name in enumerate(removed):
        check_name(name, f"unset[{index}]")
        if name in values:
            raise ValidationError(
                f"property {name!r} is both set and unset", field=f"unset[{index}]"
            )
    if len(_json(values).encode()) > MAX_METADATA_BYTES:
        raise TooLargeError(f"set exceeds {MAX_METADATA_BYTES} bytes", field="set")
    return PropertyPatch(clean_metadata(dict(values), policy, "set"), removed)

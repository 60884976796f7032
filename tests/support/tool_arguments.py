"""Arguments for any MCP tool, built from its published input schema: the required ones with
plain values, and every place a string can go (nested in objects, lists and free JSON)
holding a given text, so a test covers each tool's strings without naming them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

JsonSchema = dict[str, Any]


@dataclass(frozen=True)
class StringSlot:
    """One place a string goes: ``path`` as the server names it (``scope.client_id``,
    ``tags[0]``, ``details.note``) and the arguments that put ``text`` there."""

    path: str
    arguments: dict[str, Any]


def _resolved(schema: JsonSchema, root: JsonSchema) -> JsonSchema:
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        found: JsonSchema = root["$defs"][name]
        return found
    return schema


def _variants(schema: JsonSchema, root: JsonSchema) -> list[JsonSchema]:
    """The non-null alternatives of a property (``anyOf`` for optional ones), resolved."""
    options = schema.get("anyOf", [schema])
    return [_resolved(o, root) for o in options if o.get("type") != "null"]


def plain_value(schema: JsonSchema, root: JsonSchema) -> Any:
    """A valid value of a property: an enum's first member, "x", 1, False, [] or {}."""
    [variant, *_] = _variants(schema, root)
    if "enum" in variant:
        return variant["enum"][0]
    return {"string": "x", "integer": 1, "boolean": False, "array": [], "object": {}}[
        variant["type"]
    ]


def required_arguments(schema: JsonSchema, root: JsonSchema | None = None) -> dict[str, Any]:
    """Plain values for the required properties of ``schema`` (a tool's arguments, or an
    object inside them whose ``$defs`` are in ``root``)."""
    properties = schema.get("properties", {})
    where = schema if root is None else root
    return {name: plain_value(properties[name], where) for name in schema.get("required", [])}


def _placed(schema: JsonSchema, root: JsonSchema, text: str) -> Iterator[tuple[str, Any]]:
    """(path suffix, value) for each way ``text`` can sit inside a value of ``schema``."""
    for variant in _variants(schema, root):
        kind = variant.get("type")
        if kind == "string" and "enum" not in variant:
            yield "", text
        elif kind == "array":
            for suffix, inner in _placed(variant.get("items", {}), root, text):
                yield f"[0]{suffix}", [inner]
        elif kind == "object" and "properties" in variant:
            # Its required fields filled, so the object is valid but for ``text``.
            filled = required_arguments(variant, root)
            for name, inner_schema in variant["properties"].items():
                for suffix, inner in _placed(inner_schema, root, text):
                    yield f".{name}{suffix}", {**filled, name: inner}
        elif kind == "object" and variant.get("additionalProperties") is not False:
            # Free JSON: a string value, a string deep in a list, and a key.
            yield ".note", {"note": text}
            yield ".notes[1]", {"notes": ["fine", text]}
            yield "", {text: 1}


def string_slots(schema: JsonSchema, text: str) -> list[StringSlot]:
    """Every place ``text`` can go in the tool's arguments, the required ones filled."""
    base = required_arguments(schema)
    slots = []
    for name, property_schema in schema.get("properties", {}).items():
        for suffix, value in _placed(property_schema, schema, text):
            slots.append(StringSlot(f"{name}{suffix}", {**base, name: value}))
    return slots

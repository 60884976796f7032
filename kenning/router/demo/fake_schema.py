"""The fake's answer to a generation constrained by ``format``: a real Ollama only emits JSON
that matches the schema it is given (``"json"`` means any object), so the fake, when no test
scripted an answer, emits the smallest instance of the schema.

Example: ``smallest({"type": "object", "properties": {"n": {"type": "integer"}},
"required": ["n"]}) == {"n": 0}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

_DEPTH = 32


def constrained_answer(format_: object) -> str | None:
    """The JSON text a schema-constrained model would at least produce; None when the
    request is not constrained."""
    if format_ == "json":
        return "{}"
    if isinstance(format_, Mapping):
        return json.dumps(smallest(format_, format_))
    return None


def smallest(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int = 0) -> Any:
    """The smallest value ``schema`` accepts: required properties only, empty or minimal
    arrays, the first enum value, zero or the minimum, and strings of the minimum length."""
    if depth > _DEPTH:
        return None
    if "$ref" in schema:
        return smallest(_resolve(str(schema["$ref"]), root), root, depth + 1)
    for key in ("anyOf", "oneOf", "allOf"):
        if schema.get(key):
            return smallest(schema[key][0], root, depth + 1)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    return _of_type(str(kind), schema, root, depth)


def _of_type(kind: str, schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> Any:
    if kind == "object":
        properties = schema.get("properties", {})
        return {
            name: smallest(properties.get(name, {}), root, depth + 1)
            for name in schema.get("required", [])
        }
    if kind == "array":
        item = schema.get("items", {})
        return [smallest(item, root, depth + 1) for _ in range(int(schema.get("minItems", 0)))]
    if kind == "string":
        return "x" * int(schema.get("minLength", 1))
    if kind in ("integer", "number"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        return int(low) if kind == "integer" else float(low)
    if kind == "boolean":
        return False
    return None


def _resolve(ref: str, root: Mapping[str, Any]) -> Mapping[str, Any]:
    node: Any = root
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node  # type: ignore[no-any-return]

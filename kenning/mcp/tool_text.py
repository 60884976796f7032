"""What a model reads of a tool's answer.

A tool's result goes out twice: the whole typed result as ``structuredContent`` (for
programs, checked against the tool's output schema) and a text a model reads. The SDK's
text is the result's JSON, nulls and all: ``get_context`` sent 5.9 kB of JSON around a
1.4 kB prompt. Here the text is what the model needs: ``get_context``'s prompt itself,
``search_knowledge``'s hits as lines of source and text, and for every other tool the JSON
without its empty fields. ``server.py`` wraps every tool with ``light_text``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, ParamSpec, TypeVar, cast

from mcp.types import CallToolResult, TextContent

P = ParamSpec("P")
R = TypeVar("R")


def without_empty(value: Any) -> Any:
    """``value`` with the nulls, empty lists and empty objects of its objects left out."""
    if isinstance(value, Mapping):
        kept = {str(k): without_empty(v) for k, v in value.items()}
        return {k: v for k, v in kept.items() if v is not None and v != [] and v != {}}
    if isinstance(value, list):
        return [without_empty(item) for item in value]
    return value


def compact(result: Mapping[str, Any]) -> str:
    """Any tool's result as JSON without empty fields."""
    return json.dumps(without_empty(result), ensure_ascii=False)


def context_text(result: Mapping[str, Any]) -> str:
    """``get_context``: the prompt text itself."""
    return str(result["text"])


def hit_lines(result: Mapping[str, Any]) -> str:
    """``search_knowledge``: one numbered hit a paragraph, its source, kind and score first."""
    hits = result["hits"]
    if not hits:
        return "No hits."
    lines = []
    for rank, hit in enumerate(hits, 1):
        chunk = hit["chunk"]
        ended = f", superseded by {chunk['supersededBy']}" if chunk.get("supersededAt") else ""
        lines.append(
            f"{rank}. {chunk['sourceUrn']} ({chunk['kind']}, score {hit['score']:.3f}{ended})\n"
            f"{chunk['content']}"
        )
    return "\n\n".join(lines)


TEXTS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "get_context": context_text,
    "search_knowledge": hit_lines,
}


def light_text(name: str, tool: Callable[P, Awaitable[R]]) -> Callable[P, Coroutine[Any, Any, R]]:
    """``tool``, answering a result object with its text for a model beside it in full."""
    text = TEXTS.get(name, compact)

    @functools.wraps(tool)
    async def call(*args: P.args, **kwargs: P.kwargs) -> R:
        result = await tool(*args, **kwargs)
        if not isinstance(result, dict):
            return result
        light = CallToolResult(
            content=[TextContent(type="text", text=text(result))], structured_content=result
        )
        # The SDK passes a CallToolResult through, checking it against the output schema
        # it made from ``tool``'s own return type.
        return cast(R, light)

    return call

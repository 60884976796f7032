"""The text a model reads of a tool's answer (``kenning/mcp/tool_text.py``): the prompt for
``get_context``, hits as lines for ``search_knowledge``, JSON without empty fields for the
rest; the full result always rides beside it as ``structuredContent``."""

from __future__ import annotations

from typing import Any

from mcp.types import CallToolResult, TextContent

from kenning.mcp.tool_text import compact, light_text

CHUNK: dict[str, Any] = {
    "sourceUrn": "doc:runbook",
    "kind": "runbook",
    "content": "Deploy blue-green.",
    "supersededAt": None,
    "supersededBy": None,
    "tags": [],
}
HIT: dict[str, Any] = {"chunk": CHUNK, "score": 0.8125, "vectorRank": None, "keywordRank": 1}


async def _answer(name: str, result: dict[str, Any]) -> CallToolResult:
    async def tool() -> dict[str, Any]:
        return result

    answered = await light_text(name, tool)()
    assert isinstance(answered, CallToolResult)
    assert answered.structured_content == result  # nothing of the result is lost
    return answered


def _text(answer: CallToolResult) -> str:
    [content] = answer.content
    assert isinstance(content, TextContent)
    return content.text


async def test_get_context_reads_as_its_prompt() -> None:
    result = {"text": "## rules\n- no-friday (CUSTOM): No Friday deploys", "sections": []}
    assert _text(await _answer("get_context", result)) == result["text"]


async def test_search_reads_as_hits_with_their_source() -> None:
    ended = {**HIT, "chunk": {**HIT["chunk"], "supersededAt": "2026-01-01T00:00:00+00:00",
                             "supersededBy": "doc:runbook-v2"}}  # fmt: skip
    text = _text(await _answer("search_knowledge", {"hits": [HIT, ended]}))
    assert text == (
        "1. doc:runbook (runbook, score 0.812)\nDeploy blue-green.\n\n"
        "2. doc:runbook (runbook, score 0.812, superseded by doc:runbook-v2)\nDeploy blue-green."
    )
    assert _text(await _answer("search_knowledge", {"hits": []})) == "No hits."


async def test_other_tools_read_as_json_without_empty_fields() -> None:
    result = {"node": {"key": "service:a", "label": None, "edges": [], "props": {}}, "n": 0}
    assert _text(await _answer("get_node", result)) == '{"node": {"key": "service:a"}, "n": 0}'
    assert compact({"a": [None, {"b": None}]}) == '{"a": [null, {}]}'


async def test_a_result_that_is_not_an_object_passes_unchanged() -> None:
    async def tool() -> str:
        return "plain"

    assert await light_text("get_node", tool)() == "plain"

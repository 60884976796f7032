"""The README's MCP section keeps up with the server: every tool ``tools/list`` shows is in
its table and has an example call, and every example call names a tool that exists with
arguments its input schema accepts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from kenning.mcp.server import build_server

README = Path(__file__).resolve().parents[3] / "README.md"


def _mcp_section() -> str:
    text = README.read_text()
    start = text.index("### MCP (for agents)")
    return text[start : text.index("\n### ", start + 1)]


def _examples() -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in _mcp_section().splitlines() if line.startswith('{"name": ')
    ]


async def test_every_tool_is_in_the_table_and_has_a_valid_example() -> None:
    tools = {tool.name: tool for tool in await build_server().list_tools()}
    section = _mcp_section()
    examples = _examples()
    for name in tools:
        assert f"`{name}`" in section.split("\n\n**What a model reads.**")[0], name
        assert any(e["name"] == name for e in examples), f"no example call of {name}"
    for example in examples:
        assert example["name"] in tools, example
        jsonschema.validate(example["arguments"], tools[example["name"]].input_schema)

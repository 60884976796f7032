"""The MCP section of the docs (``docs/guides/agents-and-mcp.md``) keeps up with the server:
every tool ``tools/list`` shows is in its table, marked as its annotations say (its row's last
cell starts with ``reads`` for a read-only tool, ``removes`` for a destructive one,
``writes`` otherwise), and has an example call, and every example call
names a tool that exists with arguments its input schema accepts."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema

from kenning.mcp.server import build_server

PAGE = Path(__file__).resolve().parents[3] / "docs" / "guides" / "agents-and-mcp.md"
SECTION = "## MCP (for agents)"


def _mcp_section() -> str:
    text = PAGE.read_text()
    start = text.index(SECTION)
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _table_marks() -> dict[str, str]:
    """Tool name → its mark in the last cell of its table row (``reads`` or ``writes``); a
    row of several tools marks them in order, ``;`` apart, or all with one mark."""
    marks: dict[str, str] = {}
    for line in _mcp_section().splitlines():
        cells = [c.strip() for c in line.strip("|").split(" | ")]
        if not line.startswith("| `") or len(cells) < 3:
            continue
        names = re.findall(r"`(\w+)`", cells[0])
        each = [mark.strip() for mark in cells[-1].split(";")]
        each = each if len(each) == len(names) else [cells[-1]] * len(names)
        marks |= dict(zip(names, each, strict=True))
    return marks


def _examples() -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in _mcp_section().splitlines() if line.startswith('{"name": ')
    ]


async def test_every_tool_is_in_the_table_and_has_a_valid_example() -> None:
    tools = {tool.name: tool for tool in await build_server().list_tools()}
    section = _mcp_section()
    examples = _examples()
    assert examples, f"no example call in {PAGE.name}"
    for name in tools:
        assert f"`{name}`" in section.split("\n\n**What a model reads.**")[0], name
        assert any(e["name"] == name for e in examples), f"no example call of {name}"
    marks = _table_marks()
    for name, tool in tools.items():
        hints = tool.annotations
        assert hints is not None, name
        said = (
            "reads" if hints.read_only_hint else "removes" if hints.destructive_hint else "writes"
        )
        assert (marks.get(name) or "?").split()[0] == said, (name, marks.get(name), said)
    for example in examples:
        assert example["name"] in tools, example
        jsonschema.validate(example["arguments"], tools[example["name"]].input_schema)

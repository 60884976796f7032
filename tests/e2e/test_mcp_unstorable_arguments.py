"""A NUL character in any string argument of any MCP tool, nested ones and JSON keys
included, is refused as GraphQL refuses it: a tool error with INVALID naming the argument,
logged at INFO without a traceback. (A lone surrogate, the other text PostgreSQL cannot
store, never gets this far: the transport's JSON parser refuses its escape.)

The tools and their arguments come from the server's own ``list_tools``, so a new tool or a
new argument is covered without touching this file."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.mcp.server import build_server
from kenning.settings import Settings
from tests.support.mcp_session import error_text, mcp_session
from tests.support.server_process import Server, create_key
from tests.support.tool_arguments import string_slots

pytestmark = pytest.mark.e2e

PUBLISHED = {tool.name: tool.input_schema for tool in asyncio.run(build_server().list_tools())}


@pytest.fixture(scope="module")
def agent_key(migrated_settings: Settings) -> str:
    scope = Scope(f"nul-{uuid.uuid4().hex[:6]}", "web")
    return asyncio.run(create_key(migrated_settings, scope, Role.AGENT))


def _log_lines(server: Server, start: int) -> list[dict[str, object]]:
    text = server.log.read_text()[start:]
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


async def test_the_running_server_lists_the_tools_checked_here(
    server: Server, agent_key: str
) -> None:
    async with mcp_session(server.url, agent_key) as session:
        listed = {tool.name for tool in (await session.list_tools()).tools}
    assert listed == set(PUBLISHED)


@pytest.mark.parametrize("tool", sorted(PUBLISHED))
async def test_a_nul_in_any_string_argument_is_refused_naming_it(
    server: Server, agent_key: str, tool: str
) -> None:
    slots = string_slots(PUBLISHED[tool], "before\x00after")
    assert slots, f"{tool} takes no string: nothing here could fail"
    start = len(server.log.read_text())
    refused = {}
    async with mcp_session(server.url, agent_key) as session:
        for slot in slots:
            result = await session.call_tool(tool, slot.arguments)
            refused[slot.path] = (result.is_error, error_text(result))
    wrong = {
        path: text
        for path, (is_error, text) in refused.items()
        if not (
            is_error
            and text.startswith(f"Error executing tool {tool}: INVALID: ")
            and "NUL character (U+0000)" in text
            and text.endswith(f"(field: {path})")
        )
    }
    assert wrong == {}
    lines = _log_lines(server, start)
    assert [line for line in lines if line["level"] not in ("debug", "info")] == []
    assert [line for line in lines if "exc" in line] == []
    assert "Traceback" not in server.log.read_text()[start:]

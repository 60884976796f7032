"""An MCP client session over Streamable HTTP to a real server, with an API key."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp.client import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent


@asynccontextmanager
async def mcp_session(url: str, key: str | None) -> AsyncIterator[ClientSession]:
    """An initialized session to ``url``/mcp, sending ``key`` as the bearer key."""
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def call(session: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    """The structured result of a tool call that must succeed."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, error_text(result)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    """The text of a tool result (an error's message)."""
    return "\n".join(c.text for c in result.content if isinstance(c, TextContent))


def refusal(result: CallToolResult) -> str:
    """A tool error's own text (``CODE: message (field: name)``), without the SDK's
    ``Error executing tool <name>: `` prefix; fails when the call succeeded."""
    assert result.is_error, result.structured_content
    text = error_text(result)
    prefix = "Error executing tool "
    return text.split(": ", 1)[1] if text.startswith(prefix) else text

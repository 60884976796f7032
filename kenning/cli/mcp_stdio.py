"""``kenning mcp``: Kenning's MCP tools on stdio, for MCP clients that launch a command
(``mcp_proxy.py`` forwards every request to a running server)."""

from __future__ import annotations

import asyncio

from kenning.cli.options import SERVER, ApiKey, ServerUrl, api_key_of


def mcp_command(
    url: ServerUrl = SERVER,
    api_key: ApiKey = None,
) -> None:
    """Serve Kenning's MCP tools on stdin and stdout, forwarding each call to a running
    server's /mcp with the key; errors and logs go to stderr, never to stdout."""
    key = api_key_of(api_key)
    # Only this command pays for importing the MCP SDK.
    # uvloop's pipes wake sooner than asyncio's selector loop: the hop is on every call.
    import uvloop

    from kenning.cli.mcp_proxy import serve_stdio

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        runner.run(serve_stdio(url, key))

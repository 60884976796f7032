"""``kenning mcp``: Kenning's MCP tools on stdio, for MCP clients that launch a command
(``mcp_proxy.py`` forwards every request to a running server)."""

from __future__ import annotations

import asyncio
import os
from typing import Annotated

import typer


def mcp_command(
    url: Annotated[
        str, typer.Option(metavar="URL", help="The running server.")
    ] = "http://127.0.0.1:8000",
    api_key: Annotated[
        str | None, typer.Option(metavar="KEY", help="An agent key [default: $KENNING_API_KEY].")
    ] = None,
) -> None:
    """Serve Kenning's MCP tools on stdin and stdout, forwarding each call to a running
    server's /mcp with the key; errors and logs go to stderr, never to stdout."""
    key = api_key or os.environ.get("KENNING_API_KEY")
    if not key:
        raise typer.BadParameter("give --api-key or set KENNING_API_KEY")
    # Only this command pays for importing the MCP SDK.
    from kenning.cli.mcp_proxy import serve_stdio

    asyncio.run(serve_stdio(url, key))

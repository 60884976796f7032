"""An MCP server on stdio that forwards to a Kenning server's ``/mcp``.

Many MCP clients (desktop assistants, IDEs) only launch a local command and speak to it
over stdin and stdout. ``kenning mcp`` is that command: it holds an MCP session to the
server (Streamable HTTP, the API key as the bearer key) and answers every request of the
client with the server's answer, unchanged: the tool list with its schemas and annotations,
each tool call's result (errors included, with Kenning's code), and the resources.

Before it serves anything it checks the server once: an unreachable server or a refused key
is ``UpstreamError`` (one line on stderr, exit 3 or 4), never a hang. A server lost later makes
each call a tool error starting ``UNAVAILABLE``, so the agent sees why; the next call
connects again, so a restarted server is used as soon as it is back.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

import httpx
import httpx2
from mcp import types
from mcp.client import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

from kenning import __version__
from kenning.cli.server_errors import UpstreamError, calling, http_status
from kenning.cli.stdio_pipes import StdioPipes, stdio_pipes

CHECK_SECONDS = 10.0
CALL_SECONDS = 300.0
_PING = {"query": "{ __typename }"}
T = TypeVar("T")


async def check_upstream(url: str, key: str) -> None:
    """``UpstreamError`` saying what is wrong unless ``url`` answers and takes ``key``."""
    headers = {"Authorization": f"Bearer {key}"}
    with calling(url):
        async with httpx.AsyncClient(timeout=CHECK_SECONDS) as http:
            answer = await http.post(f"{url}/graphql", json=_PING, headers=headers)
    if answer.status_code != 200:
        raise http_status(url, answer)


class Upstream:
    """The MCP session to the server, held by a task of its own: a transport that fails
    ends that task (the session with it), and the calls waiting on it fail at once instead
    of waiting for an answer that cannot come; the next call opens a new session."""

    def __init__(self, url: str, key: str) -> None:
        self._url, self._headers = url, {"Authorization": f"Bearer {key}"}
        self._held: tuple[ClientSession, asyncio.Task[None]] | None = None
        self._stop = asyncio.Event()
        self.started: types.InitializeResult | None = None

    async def _hold(self, ready: asyncio.Future[ClientSession]) -> None:
        async with (
            httpx2.AsyncClient(headers=self._headers, timeout=CALL_SECONDS) as http,
            streamable_http_client(f"{self._url}/mcp", http_client=http) as (read, write),
            ClientSession(read, write) as session,
        ):
            self.started = await session.initialize()
            ready.set_result(session)
            await self._stop.wait()

    async def _session(self) -> tuple[ClientSession, asyncio.Task[None]]:
        if self._held is None or self._held[1].done():
            ready: asyncio.Future[ClientSession] = asyncio.get_running_loop().create_future()
            holder = asyncio.create_task(self._hold(ready))
            # Its failure is told to the calls waiting on it (``call``), not logged again.
            holder.add_done_callback(lambda task: task.cancelled() or task.exception())
            waits: set[asyncio.Future[Any]] = {ready, holder}
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            if not ready.done():  # it ended before the session was ready
                raise ConnectionError(f"no MCP session at {self._url}/mcp")
            self._held = (ready.result(), holder)
        return self._held

    async def connect(self) -> types.InitializeResult:
        """The server's answer to the first session's handshake; ``UpstreamError`` when no
        session opens."""
        try:
            await self._session()
        except Exception as error:
            raise UpstreamError(
                f"cannot open an MCP session at {self._url}/mcp ({type(error).__name__})"
            ) from error
        assert self.started is not None
        return self.started

    async def call(self, send: Callable[[ClientSession], Awaitable[T]]) -> T:
        """``send`` on the session; ``ConnectionError`` when the session is lost meanwhile."""
        session, holder = await self._session()
        sent = asyncio.ensure_future(send(session))
        waits: set[asyncio.Future[Any]] = {sent, holder}
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        if not sent.done():
            sent.cancel()
            raise ConnectionError("the connection to the server was lost")
        return sent.result()

    async def aclose(self) -> None:
        self._stop.set()
        if self._held is not None:
            with contextlib.suppress(Exception):
                await self._held[1]


def _unavailable(error: Exception) -> types.CallToolResult:
    text = f"UNAVAILABLE: the Kenning server did not answer ({error}); try again"
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


def proxy_server(upstream: Upstream, started: types.InitializeResult) -> Server[Any]:
    """A server whose every answer is ``upstream``'s, with the capabilities it has."""

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return await upstream.call(lambda s: s.list_tools(params=params))

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        # As sent, and no second check of the result against the tool's output schema
        # here: the client that asked checks it against the schema it was listed.
        request = types.CallToolRequest(params=params)
        try:
            return await upstream.call(lambda s: s.send_request(request, types.CallToolResult))
        except MCPError as error:
            if error.code != types.CONNECTION_CLOSED:
                raise  # the server's own protocol error (an unknown tool): the client gets it
            return _unavailable(error)
        except Exception as error:  # the connection: the agent is told, the proxy lives on
            return _unavailable(error)

    async def list_resources(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return await upstream.call(lambda s: s.list_resources(params=params))

    async def read_resource(
        ctx: Any, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await upstream.call(lambda s: s.read_resource(params.uri))

    resources = started.capabilities.resources is not None
    return Server(
        "kenning",
        version=__version__,
        instructions=started.instructions,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources if resources else None,
        on_read_resource=read_resource if resources else None,
    )


def _stdio(pipes: StdioPipes | None) -> Any:
    """The SDK's stdio transport, over the loop's own pipes when there are some."""
    if pipes is None:
        return stdio_server()
    # Duck-typed as the SDK's text files: it only iterates lines, writes and flushes.
    return stdio_server(cast(Any, pipes.lines), cast(Any, pipes.text))


async def serve_stdio(url: str, key: str) -> None:
    """Check the server, then serve MCP on stdin and stdout until the client closes it."""
    url = url.rstrip("/")
    await check_upstream(url, key)
    upstream = Upstream(url, key)
    try:
        server = proxy_server(upstream, await upstream.connect())
        async with stdio_pipes() as pipes, _stdio(pipes) as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await upstream.aclose()

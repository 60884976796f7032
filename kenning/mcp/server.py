"""The MCP server: Kenning's tools, served over Streamable HTTP behind the API-key gate.

``mcp_endpoint`` builds it once per app; ``create_app`` mounts ``McpEndpoint.app`` at
``/mcp`` and runs ``McpEndpoint.inside(lifespan)`` as the app's lifespan.

The transport is stateless and answers in plain JSON: every request carries its key and
stands alone, so any server process can answer any call (no session to pin to one
process) and a revoked key is refused at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass

from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import (
    StreamableHTTPASGIApp,
    StreamableHTTPSessionManager,
)
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import ToolAnnotations
from starlette.applications import Starlette
from starlette.types import ASGIApp

from kenning import __version__
from kenning.mcp import (
    crawl_tools,
    document_tools,
    file_tools,
    graph_tools,
    graph_write_tools,
    history_tools,
    job_tools,
    knowledge_tools,
    memory_tools,
    procedure_tools,
    read_tools,
    recall_tools,
    rule_tools,
    search_tools,
    source_list_tools,
    source_tools,
    structure_tools,
)
from kenning.mcp.auth import KeyGate
from kenning.mcp.calls import storable_arguments
from kenning.mcp.resources import add_resources
from kenning.mcp.tool_spec import ToolSpec
from kenning.mcp.tool_text import light_text
from kenning.runtime import Runtime

Lifespan = Callable[[Starlette], AbstractAsyncContextManager[None]]

TOOLS: tuple[ToolSpec, ...] = (
    *recall_tools.TOOLS,
    *memory_tools.TOOLS,
    *history_tools.TOOLS,
    *search_tools.TOOLS,
    *knowledge_tools.TOOLS,
    *graph_tools.TOOLS,
    *structure_tools.TOOLS,
    *file_tools.TOOLS,
    *crawl_tools.TOOLS,
    *job_tools.TOOLS,
    *procedure_tools.TOOLS,
    *rule_tools.TOOLS,
    *read_tools.TOOLS,
    *document_tools.TOOLS,
    *graph_write_tools.TOOLS,
    *source_tools.TOOLS,
    *source_list_tools.TOOLS,
)

INSTRUCTIONS = (
    "Kenning is your long-term memory and knowledge base. Before a task: get_rules (mandatory "
    "rules), get_context (what you should know), find_procedures (how it was done before). "
    "During it: search_knowledge, get_node, get_neighbors; append_session for notes. After "
    "it: record_task_outcome; store_knowledge for facts about the user; ingest_document for "
    "documents worth keeping, ingest_file for a file (PDF, Office, HTML, e-mail, image), "
    "crawl for a web site (crawl_status follows it), structure_knowledge for an expert's "
    "free text, request_ingestion to queue many documents (job_status and list_jobs follow "
    "any job). Errors start with a code (INVALID, OUT_OF_SCOPE, ...)."
)


def build_server() -> MCPServer:
    """An ``MCPServer`` with every Kenning tool registered."""
    server: MCPServer = MCPServer("kenning", instructions=INSTRUCTIONS, version=__version__)
    for spec in TOOLS:
        server.add_tool(
            # Here rather than per tool, so a new tool cannot miss the check or the text.
            light_text(spec.name, storable_arguments(spec.function)),
            name=spec.name,
            description=spec.description,
            annotations=ToolAnnotations(
                read_only_hint=spec.read_only,
                destructive_hint=spec.destructive,
                idempotent_hint=spec.read_only if spec.idempotent is None else spec.idempotent,
                open_world_hint=spec.open_world,
            ),
        )
    add_resources(server)
    return server


@dataclass(frozen=True, slots=True)
class McpEndpoint:
    """The gated ASGI app to mount at ``/mcp`` and the session manager it needs running."""

    app: ASGIApp
    manager: StreamableHTTPSessionManager

    def inside(self, lifespan: Lifespan) -> Lifespan:
        """``lifespan`` with the MCP transport running inside it: started once the runtime
        is ready, stopped (cancelling calls in flight) before the runtime closes."""

        @asynccontextmanager
        async def run(app: Starlette) -> AsyncIterator[None]:
            async with lifespan(app):
                # The manager's task group must start and stop in one task; a host may run
                # the lifespan's start and end in different tasks (test harnesses do).
                started, stop = asyncio.Event(), asyncio.Event()
                task = asyncio.create_task(self._serve(started, stop))
                waiter = asyncio.create_task(started.wait())
                await asyncio.wait([task, waiter], return_when=asyncio.FIRST_COMPLETED)
                waiter.cancel()
                if task.done():
                    task.result()  # the manager failed to start: raise it here
                try:
                    yield
                finally:
                    stop.set()
                    await task

        return run

    async def _serve(self, started: asyncio.Event, stop: asyncio.Event) -> None:
        async with self.manager.run():
            started.set()
            await stop.wait()


def mcp_endpoint(
    holder: dict[str, Runtime],
    unavailable: Callable[[BaseException], str | None],
    max_request_bytes: int,
) -> McpEndpoint:
    """The ``/mcp`` endpoint over the runtime in ``holder`` (absent while starting)."""
    server = build_server()
    server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        max_request_body_size=max_request_bytes,
        # The SDK's rebinding guard admits only localhost Host headers; a deployed server
        # has its own names. Every call needs an API key in a header, which a rebound page
        # cannot send, and browsers' origins are checked by the app's CORS policy.
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    manager = server.session_manager
    return McpEndpoint(KeyGate(StreamableHTTPASGIApp(manager), holder, unavailable), manager)

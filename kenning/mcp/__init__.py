"""The MCP endpoint at ``/mcp``: Kenning's memory and knowledge use cases as Model Context
Protocol tools for agents (Streamable HTTP, the official ``mcp`` SDK).

Read ``server.py`` first: it builds the server, lists the tools and mounts them behind
``auth.py``, which admits a request with the same API keys ``/graphql`` takes. Each tool
(``memory_tools.py``, ``knowledge_tools.py``) calls the domain use case its GraphQL resolver
calls; ``calls.py`` holds what they share: the caller, its scopes, domain errors turned
into tool errors with their code, and the check of every argument for text that cannot be
stored (a NUL), which ``server.py`` puts around every tool.
"""

from kenning.mcp.server import McpEndpoint, mcp_endpoint

__all__ = ["McpEndpoint", "mcp_endpoint"]

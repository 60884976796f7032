"""What an MCP client can attach to a conversation: the key's rules in force, its shared user
knowledge and its session, each as the Markdown lines ``agentContext`` uses for them.

``kenning://rules``, ``kenning://user-context`` and ``kenning://session`` are read-only and
scoped by the request's key exactly as ``get_rules``, ``userContext`` (no user: the shared
items) and ``get_session`` are: they call the same use cases (``rules_in_force``,
``context_of_user`` and ``session_for`` of ``kenning.domain.memory``'s ``rule_request``,
``knowledge_request`` and ``session_request``) with the key's own scope. The SDK gives a
static resource no request context, so the caller comes from ``auth.current_caller``, which
``KeyGate`` sets for each request; a read without one is refused, never answered unscoped.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError

from kenning.domain.errors import KenningError
from kenning.domain.memory import context_lines as formats
from kenning.domain.memory.knowledge_request import ContextRead, context_of_user
from kenning.domain.memory.rule_request import RulesRead, rules_in_force
from kenning.domain.memory.session_request import SessionRead, session_for
from kenning.mcp.auth import Caller, current_caller

MARKDOWN = "text/markdown"
SESSION_ENTRIES = 20


def _caller() -> Caller:
    found = current_caller()
    if found is None:
        raise ResourceError("OUT_OF_SCOPE: no API key was presented")
    return found


def _lines(title: str, lines: list[str]) -> str:
    body = "\n".join(f"- {line}" for line in lines) if lines else "(none)"
    return f"# {title}\n\n{body}\n"


async def rules_text() -> str:
    """The rules in force for the key's scope: client-wide, overridden by its project's."""
    who = _caller()
    found = await rules_in_force(who.scoped, RulesRead(), who.runtime.rules)
    return _lines("Rules", [formats.rule_line(rule).text for rule in found])


async def user_context_text() -> str:
    """The shared user knowledge the key's scope sees (no user named: no one's own)."""
    who = _caller()
    found = await context_of_user(who.scoped, ContextRead(), who.runtime.user_knowledge)
    return found.markdown or _lines("User context", [])


async def session_text() -> str:
    """The newest shared entries of the key's session."""
    who = _caller()
    request = SessionRead(SESSION_ENTRIES)
    found = await session_for(who.scoped, request, who.runtime.session_entries)
    return _lines("Session", [formats.session_line(entry).text for entry in found])


@dataclass(frozen=True, slots=True)
class ResourceSpec:
    uri: str
    name: str
    description: str
    read: Callable[[], Awaitable[str]]


RESOURCES = (
    ResourceSpec("kenning://rules", "rules", "The hard rules in force for this key.", rules_text),
    ResourceSpec(
        "kenning://user-context",
        "user-context",
        "What is known about the users of this key's scope (the shared items).",
        user_context_text,
    ),
    ResourceSpec(
        "kenning://session",
        "session",
        f"The newest {SESSION_ENTRIES} shared entries of this key's session memory.",
        session_text,
    ),
)


def add_resources(server: MCPServer) -> None:
    """Register every resource; a domain error is a resource error with its code."""
    for spec in RESOURCES:
        register = server.resource(
            spec.uri, name=spec.name, description=spec.description, mime_type=MARKDOWN
        )
        register(_coded(spec.read))


def _coded(read: Callable[[], Awaitable[str]]) -> Callable[[], Awaitable[str]]:
    async def coded() -> str:
        try:
            return await read()
        except KenningError as error:
            raise ResourceError(f"{error.code.value}: {error.message}") from error

    coded.__name__ = read.__name__
    coded.__doc__ = read.__doc__
    return coded

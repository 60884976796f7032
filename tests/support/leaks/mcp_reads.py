"""The MCP read tools in the leak audit: each called in process as the reader's key (the
caller ``auth.KeyGate`` would admit), its answer scanned for any scope the reader may not
see, and held to the same reference as the GraphQL paths: a search finds exactly the
visible chunks, a node is there when visible, a neighborhood is the visible one. A
narrowing the key may not make is an ``OUT_OF_SCOPE`` tool error on every tool."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from functools import partial
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

import pytest
from mcp.server.mcpserver.exceptions import ToolError

from kenning.domain.access.principal import Principal
from kenning.domain.access.scope import Scope
from kenning.domain.retrieval.search import SearchMode
from kenning.mcp.auth import CALLER, Caller
from kenning.mcp.calls import ScopeArg, ToolContext
from kenning.mcp.graph_tools import find_nodes_tool, get_neighbors_tool, get_node_tool
from kenning.mcp.recall_tools import get_context_tool
from kenning.mcp.search_arguments import MoreFilters
from kenning.mcp.search_tools import search_knowledge_tool
from kenning.mcp.source_list_tools import list_sources_tool
from kenning.runtime import Runtime
from tests.support.leaks.corpus import WORD
from tests.support.leaks.read_paths import FILTER_AFTER, FILTER_ENTITY, MODES, Probe

if TYPE_CHECKING:
    from tests.support.leaks.audit import Audit

Read = Callable[..., Awaitable[dict[str, Any]]]


def tool_context(runtime: Runtime, principal: Principal) -> ToolContext:
    """What the SDK hands a tool for a request ``KeyGate`` admitted with ``principal``."""
    request = SimpleNamespace(scope={CALLER: Caller(runtime, principal)})
    return cast(ToolContext, SimpleNamespace(request_context=SimpleNamespace(request=request)))


def _reads(ctx: ToolContext, probe: Probe) -> dict[str, Read]:
    """Each read tool with its arguments, waiting for the scope to narrow to."""
    reads: dict[str, Read] = {
        f"search_{mode}": partial(
            search_knowledge_tool, ctx, query=WORD, mode=SearchMode(mode), limit=100
        )
        for mode in MODES
    }
    narrowed = MoreFilters(entity_keys=[FILTER_ENTITY], created_after=FILTER_AFTER)
    reads["narrowed_search"] = partial(
        search_knowledge_tool, ctx, query=WORD, limit=100, filters=narrowed
    )
    reads["get_node"] = partial(get_node_tool, ctx, key=probe.entity, edge_limit=500)
    reads["find_nodes"] = partial(find_nodes_tool, ctx, query=probe.entity, limit=100)
    for i, (key, depth) in enumerate(probe.neighbors):
        reads[f"neighbors_{i}"] = partial(get_neighbors_tool, ctx, key=key, depth=depth,
                                          limit=1000)  # fmt: skip
    reads["get_context"] = partial(
        get_context_tool, ctx, query=probe.query, entity_keys=[probe.entity], limit=50
    )
    reads["list_sources"] = partial(list_sources_tool, ctx, first=200)
    reads["get_context_deep"] = partial(
        get_context_tool, ctx, query=probe.query, user_key=probe.entity, limit=50, depth=3
    )
    return reads


def _snake(scope: dict[str, str]) -> dict[str, str]:
    return {
        "client_id": scope["clientId"],
        "project_id": scope["projectId"],
        "group_id": scope["groupId"],
    }


def _arg(scope: Scope | None) -> ScopeArg | None:
    if scope is None:
        return None
    return ScopeArg(client_id=scope.client_id, project_id=scope.project_id,
                    group_id=scope.group_id)  # fmt: skip


async def audit_mcp(
    runtime: Runtime, audit: Audit, principal: Principal, narrow: Scope | None, probe: Probe
) -> None:
    """Every MCP read tool as ``principal`` (narrowed to ``narrow``), checked by ``audit``."""
    visible = audit.visible
    for name, read in _reads(tool_context(runtime, principal), probe).items():
        answer = await read(scope=_arg(narrow))
        audit.walk(json.loads(json.dumps(answer)), f"mcp.{name}")
        if name.startswith("search_"):
            ids = {hit["chunk"]["id"] for hit in answer["hits"]}
            assert ids == set(visible.chunks), (audit.who, name, ids ^ set(visible.chunks))
        elif name == "narrowed_search":
            ids = {hit["chunk"]["id"] for hit in answer["hits"]}
            assert ids == visible.chunks_referencing(FILTER_ENTITY), (audit.who, name, ids)
        elif name == "get_node":
            node = answer["node"]
            assert (node is not None) == (probe.entity in visible.keys), (audit.who, node)
        elif name == "find_nodes":
            keys = [m["key"] for m in answer["matches"]]
            assert (probe.entity in keys) == (probe.entity in visible.keys), (audit.who, keys)
            assert all(key in visible.keys for key in keys), (audit.who, keys)
        elif name == "list_sources":
            listed = {(s["sourceUrn"], Scope(**_snake(s["scope"]))) for s in answer["sources"]}
            assert listed == visible.sources and not answer["hasNextPage"], (audit.who, listed)
        elif name.startswith("neighbors_"):
            key, depth = probe.neighbors[int(name.rsplit("_", 1)[1])]
            want, _ = visible.neighborhood(key, depth)
            got = {n["key"] for n in answer["nodes"]}
            assert got == want and not answer["truncated"], (audit.who, name, got ^ want)


async def refused_mcp(runtime: Runtime, principal: Principal, narrow: Scope, probe: Probe) -> None:
    """Every MCP read tool refuses a narrowing ``principal`` may not make."""
    for name, read in _reads(tool_context(runtime, principal), probe).items():
        with pytest.raises(ToolError, match=r"^OUT_OF_SCOPE") as refused:
            await read(scope=_arg(narrow))
        assert "scopetag" not in str(refused.value), (name, refused.value)

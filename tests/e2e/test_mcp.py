"""The MCP endpoint (/mcp) over real HTTP with the `mcp` client library: the tools and their
schemas, each tool called, refused keys, domain errors as tool errors, and isolation between
clients."""

from __future__ import annotations

import asyncio
import json
import uuid
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.db.pool import create_pool
from tests.support.mcp_session import call, error_text, mcp_session
from tests.support.server_process import Server, create_key, graphql

pytestmark = pytest.mark.e2e

TOOLS = {
    "store_knowledge", "search_knowledge", "get_context", "record_task_outcome",
    "append_session", "get_session", "find_procedures", "get_rules", "ingest_document",
    "get_node", "get_neighbors", "structure_knowledge", "find_nodes", "ingest_file",
    "crawl", "crawl_status", "retract_edge", "forget_knowledge", "get_history", "update_node",
    "job_status", "list_jobs", "save_procedure", "record_procedure_run", "store_rule",
    "delete_rule", "get_chunks", "evidence_pack", "find_path", "user_context",
    "request_ingestion", "ingest_graph", "load_knowledge", "ingest_git_commits",
    "purge_source", "ingest_repository", "list_sources", "purge_crawl", "purge_repository",
}  # fmt: skip

SAVE_PROCEDURE = """mutation($input: SaveProcedureInput!) {
  saveProcedure(input: $input) { __typename ... on Procedure { id } } }"""
REVOKE = "mutation R($id: ID!) { revokeApiKey(id: $id) { __typename } }"
STORE_RULE = """mutation($ruleKey: String!, $content: String!) {
  storeRule(ruleKey: $ruleKey, ruleType: SECURITY, content: $content) { __typename } }"""


@dataclass(frozen=True)
class Keys:
    client_a: str
    agent_a: str  # project web of client A
    agent_b: str  # project web of client B
    reader_b: str  # client-wide, read-only key of client B
    owner_a: str  # client-wide agent key of client A (procedures serve the whole client)


@pytest.fixture(scope="module")
def keys(migrated_settings: Settings) -> Keys:
    a, b = f"mcp-a-{uuid.uuid4().hex[:6]}", f"mcp-b-{uuid.uuid4().hex[:6]}"

    def key(scope: Scope, role: Role) -> str:
        return asyncio.run(create_key(migrated_settings, scope, role))

    return Keys(
        a,
        key(Scope(a, "web"), Role.AGENT),
        key(Scope(b, "web"), Role.AGENT),
        key(Scope(b), Role.UI),
        key(Scope(a), Role.AGENT),
    )


async def test_the_tools_are_listed_with_descriptions_and_schemas(
    server: Server, keys: Keys
) -> None:
    async with mcp_session(server.url, keys.agent_a) as session:
        tools = (await session.list_tools()).tools
    assert {tool.name for tool in tools} == TOOLS
    for tool in tools:
        assert tool.description is not None and len(tool.description) > 80, tool.name
        assert tool.input_schema["type"] == "object"
        # The SDK's context parameter is filled by the server, never asked of the model.
        assert "ctx" not in tool.input_schema.get("properties", {}), tool.name
    by_name = {tool.name: tool for tool in tools}
    category = by_name["store_knowledge"].input_schema["$defs"]["KnowledgeCategory"]
    assert category["enum"] == ["PREFERENCE", "DOMAIN", "TEAM", "TECH_STACK", "PERSONAL", "GENERAL"]
    assert set(by_name["store_knowledge"].input_schema["required"]) == {
        "subject", "content", "category"
    }  # fmt: skip
    assert by_name["get_rules"].annotations is not None
    assert by_name["get_rules"].annotations.read_only_hint is True
    assert by_name["ingest_document"].annotations is not None
    assert by_name["ingest_document"].annotations.read_only_hint is False


def initialize(server: Server, key: str | None) -> httpx.Response:
    """An MCP ``initialize`` request over raw HTTP with ``key`` (none when None)."""
    headers = {"Accept": "application/json, text/event-stream"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    message = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}}  # fmt: skip
    return httpx.post(f"{server.url}/mcp", json=message, headers=headers, timeout=10)


@pytest.mark.parametrize("key", [None, "kn_not-a-real-key"])
def test_a_missing_or_wrong_key_is_refused(server: Server, key: str | None) -> None:
    response = initialize(server, key)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


async def test_the_client_library_fails_with_a_wrong_key(server: Server) -> None:
    with pytest.raises(Exception) as refused:
        async with mcp_session(server.url, "kn_not-a-real-key") as session:
            await session.list_tools()
    # The SDK reports the 401 (checked above over raw HTTP) as an error response.
    assert "Server returned an error response" in repr(refused.value)


async def test_a_revoked_key_is_refused_at_its_next_call(
    server: Server, migrated_settings: Settings
) -> None:
    pool = await create_pool(migrated_settings, min_size=1)
    try:
        key, created = await PgApiKeys(pool).create(Scope("mcp-revoked"), Role.AGENT, "e2e")
    finally:
        await pool.close()
    assert initialize(server, key).status_code == 200
    async with mcp_session(server.url, key) as session:
        await call(session, "get_session")
        graphql(server, server.key, REVOKE, id=created.id)
        with pytest.raises(Exception):  # noqa: B017 - the transport's HTTP error
            await session.call_tool("get_session", {})
    # What the session's call met: the endpoint refuses the revoked key with a 401.
    refused = initialize(server, key)
    assert refused.status_code == 401
    assert refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


async def test_domain_errors_come_back_as_tool_errors_with_their_code(
    server: Server, keys: Keys
) -> None:
    async with mcp_session(server.url, keys.agent_a) as session:
        long = await session.call_tool("append_session", {"source": "CHAT", "summary": "x" * 201})
        narrow = await session.call_tool("get_session", {"scope": {"client_id": "someone-else"}})
        read_only = await session.call_tool("get_node", {"key": "not a key"})
    async with mcp_session(server.url, keys.reader_b) as session:
        write = await session.call_tool(
            "store_knowledge", {"subject": "s", "content": "c", "category": "GENERAL"}
        )
    assert long.is_error and "summary" in error_text(long)
    assert "TOO_LARGE" in error_text(long) or "INVALID" in error_text(long)
    assert narrow.is_error and "OUT_OF_SCOPE" in error_text(narrow)
    assert read_only.is_error and "INVALID" in error_text(read_only)
    assert write.is_error and "OUT_OF_SCOPE: this key may only read" in error_text(write)
    for result in (long, narrow, read_only, write):
        assert "Traceback" not in error_text(result)


async def _write_as_client_a(server: Server, keys: Keys) -> dict[str, Any]:
    """Every writing tool once as client A; returns what they answered."""
    async with mcp_session(server.url, keys.agent_a) as session:
        return {
            "knowledge": await call(session, "store_knowledge", subject="editor",
                                    content="Prefers Helix zebrafinch keybindings.",
                                    category="PREFERENCE"),
            "document": await call(session, "ingest_document", source_urn="doc:mcp-runbook",
                                   kind="runbook", info_type="instructions",
                                   content="Deploy the quokkaline service with blue-green.",
                                   main_node_key="service:quokkaline",
                                   relationships=["service:quokkaline|depends_on|db:pelican"]),
            "session": await call(session, "append_session", source="CHAT",
                                  summary="User asked about quokkaline deploys",
                                  details={"turn": 3}, task_id="T-9"),
            "kept": await call(session, "record_task_outcome", task_id="T-9",
                               category="SINGLE_TASK", action="CODE",
                               summary="Moved quokkaline to blue-green",
                               final_result="Merged", artifacts=["deploy/quokka.yaml"]),
            "skipped": await call(session, "record_task_outcome", task_id="T-10",
                                  category="ADVICE", action="RESPOND", summary="Explained",
                                  final_result="Answered"),
        }  # fmt: skip


async def test_each_tool_calls_its_use_case(server: Server, keys: Keys) -> None:
    written = await _write_as_client_a(server, keys)
    assert written["knowledge"]["kind"] == "user_knowledge_preference"
    assert written["document"]["status"] == "INDEXED"
    assert "service:quokkaline" in written["document"]["nodes"]
    assert written["session"]["entry"]["summary"] == "User asked about quokkaline deploys"
    assert written["kept"]["significant"] is True
    assert written["kept"]["sourceUrn"] == "task-outcome:T-9"
    assert written["kept"]["ingestion"]["jobId"]
    assert written["skipped"] == {
        "significant": False, "taskId": "T-10", "reason": written["skipped"]["reason"],
        "message": written["skipped"]["message"],
    }  # fmt: skip
    assert written["skipped"]["reason"]
    procedure = {"triggerPattern": "deploy quokkaline", "description": "Blue-green deploy",
                 "steps": [{"agent": "ops", "action": "deploy", "parameters": {"mode": "bg"}}],
                 "source": "USER_DEFINED"}  # fmt: skip
    saved = graphql(server, keys.owner_a, SAVE_PROCEDURE, input=procedure)
    assert saved["saveProcedure"]["__typename"] == "Procedure"
    stored = graphql(
        server, keys.agent_a, STORE_RULE, ruleKey="no-friday", content="No Friday deploys"
    )
    assert stored["storeRule"]["__typename"] == "StoreRuleSuccess"

    async with mcp_session(server.url, keys.agent_a) as session:
        hits = (await call(session, "search_knowledge", query="quokkaline blue-green"))["hits"]
        node = (await call(session, "get_node", key="service:quokkaline"))["node"]
        around = await call(session, "get_neighbors", key="service:quokkaline")
        matches = (await call(session, "find_nodes", query="quokaline"))["matches"]
        entries = (await call(session, "get_session"))["entries"]
        found = await call(session, "find_procedures", trigger_pattern="deploy quokkaline")
        rules = (await call(session, "get_rules"))["rules"]
        context = await call(session, "get_context", query="how do I deploy quokkaline?",
                             entity_keys=["service:quokkaline"])  # fmt: skip

    assert any(h["chunk"]["sourceUrn"] == "doc:mcp-runbook" for h in hits)
    assert node is not None and node["key"] == "service:quokkaline"
    assert ("service:quokkaline", "depends_on", "db:pelican") in {
        (e["fromKey"], e["edgeType"], e["toKey"]) for e in around["edges"]
    }
    assert matches[0]["key"] == "service:quokkaline"  # found despite the typo
    assert [e["taskId"] for e in entries] == ["T-9"]
    [match] = found["procedures"]
    assert match["exactMatch"] is True and match["procedure"]["steps"][0]["action"] == "deploy"
    assert [(r["ruleKey"], r["content"]) for r in rules] == [("no-friday", "No Friday deploys")]
    assert "blue-green" in context["text"]
    assert "No Friday deploys" in context["text"]  # the rules section
    assert "Service:quokkaline DEPENDS_ON → Db:pelican" in context["text"]  # the entity's edge


async def test_a_model_reads_the_prompt_and_the_hits_not_json(server: Server, keys: Keys) -> None:
    await _write_as_client_a(server, keys)
    async with mcp_session(server.url, keys.agent_a) as session:
        context = await session.call_tool("get_context", {"query": "deploy quokkaline?"})
        search = await session.call_tool("search_knowledge", {"query": "quokkaline blue-green"})
    assert isinstance(context.structured_content, dict)
    assert error_text(context) == context.structured_content["text"]
    assert len(error_text(context)) < len(json.dumps(context.structured_content))
    text = error_text(search)
    assert text.startswith("1. doc:mcp-runbook (") and "null" not in text, text


@pytest.mark.parametrize("which", ["agent_b", "reader_b"])
async def test_another_client_sees_nothing_of_client_a(
    server: Server, keys: Keys, which: str
) -> None:
    await _write_as_client_a(server, keys)
    graphql(server, keys.agent_a, STORE_RULE, ruleKey="a-only", content="Client A's rule")
    procedure = {"triggerPattern": "deploy quokkaline", "description": "Client A's deploy",
                 "steps": [{"agent": "ops", "action": "deploy", "parameters": {}}]}  # fmt: skip
    saved = graphql(server, keys.owner_a, SAVE_PROCEDURE, input=procedure)
    assert saved["saveProcedure"]["__typename"] == "Procedure"
    async with mcp_session(server.url, keys.owner_a) as session:
        own = await call(session, "find_procedures", trigger_pattern="deploy quokkaline")
    assert own["procedures"], "client A finds its own procedure: the check below can fail"
    async with mcp_session(server.url, getattr(keys, which)) as session:
        hits = (await call(session, "search_knowledge", query="quokkaline zebrafinch"))["hits"]
        node = (await call(session, "get_node", key="service:quokkaline"))["node"]
        around = await call(session, "get_neighbors", key="service:quokkaline")
        matches = (await call(session, "find_nodes", query="quokkaline"))["matches"]
        entries = (await call(session, "get_session"))["entries"]
        found = await call(session, "find_procedures", trigger_pattern="deploy quokkaline")
        rules = (await call(session, "get_rules"))["rules"]
        context = await call(session, "get_context", query="quokkaline zebrafinch deploy",
                             entity_keys=["service:quokkaline"])  # fmt: skip
    assert [h for h in hits if keys.client_a in str(h)] == []
    assert all("quokkaline" not in h["chunk"]["content"] for h in hits)
    assert node is None
    assert around["nodes"] == [] and around["edges"] == []
    assert matches == []
    assert entries == []
    assert found["procedures"] == []
    assert rules == []
    assert "quokkaline" not in context["text"] and "zebrafinch" not in context["text"]
    assert "Friday" not in context["text"] and "Client A" not in context["text"]

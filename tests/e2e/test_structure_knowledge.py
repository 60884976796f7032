"""The structure_knowledge MCP tool end to end: a real `kenning serve` process whose model
calls go over HTTP to a fake Ollama (scripted), called with the `mcp` client library; what
it loads and the check-in it leaves are read back over MCP and GraphQL."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.domain.extraction.structure_prompt import EXAMPLE_ANSWER
from kenning.router.demo import FakeOllama
from kenning.settings import Settings
from tests.support.mcp_session import call, error_text, mcp_session
from tests.support.server_process import Server, create_key, start_server, stop_server

pytestmark = pytest.mark.e2e

VALID = json.dumps(EXAMPLE_ANSWER)
TEXT = "Alice Chen leads payments. Billing belongs to payments and calls the ledger API."
CHECK_INS = """{ checkIns(first: 10) { __typename ... on CheckInPage {
  nodes { id status caller sourceUrn inputText attempts { number error } } } } }"""


@dataclass(frozen=True)
class Stack:
    server: Server
    fake: FakeOllama
    agent_a: str
    agent_b: str


@pytest.fixture(scope="module")
def stack(migrated_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    fake = FakeOllama("structure")
    fake.start()
    log = tmp_path_factory.mktemp("structure") / "server.log"
    process, server = start_server(migrated_settings, log, KENNING_OLLAMA_URL=fake.url)
    a, b = f"st-a-{uuid.uuid4().hex[:6]}", f"st-b-{uuid.uuid4().hex[:6]}"

    def key(scope: Scope) -> str:
        return asyncio.run(create_key(migrated_settings, scope, Role.AGENT))

    yield Stack(server, fake, key(Scope(a, "web")), key(Scope(b, "web")))
    stop_server(process)
    fake.stop()


def check_ins(stack: Stack, key: str) -> list[dict[str, Any]]:
    response = httpx.post(
        f"{stack.server.url}/graphql", json={"query": CHECK_INS},
        headers={"Authorization": f"Bearer {key}"}, timeout=30,
    )  # fmt: skip
    page = response.json()["data"]["checkIns"]
    assert page["__typename"] == "CheckInPage", page
    nodes: list[dict[str, Any]] = page["nodes"]
    return nodes


async def test_the_tool_structures_loads_and_checks_in(stack: Stack) -> None:
    stack.fake.script([VALID])
    async with mcp_session(stack.server.url, stack.agent_a) as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        schema = tools["structure_knowledge"].input_schema
        assert {"text", "hints", "dry_run"} <= set(schema["properties"])
        done = await call(session, "structure_knowledge", text=TEXT, hints="payments")
        neighbors = await call(session, "get_neighbors", key="service:billing")
    assert done["status"] == "LOADED" and done["knowledge"] == EXAMPLE_ANSWER
    loaded = done["loaded"]
    assert loaded["status"] == "INDEXED" and len(loaded["chunkIds"]) == 3
    assert {(e["fromKey"], e["edgeType"], e["toKey"]) for e in loaded["edges"]} >= {
        ("service:billing", "calls", "api:ledger")
    }
    calls = [e for e in neighbors["edges"] if e["edgeType"] == "calls"]
    assert len(calls) == 1 and set(calls[0]["evidenceChunkIds"]) <= set(loaded["chunkIds"])
    assert calls[0]["evidenceChunkIds"]
    [record] = [c for c in check_ins(stack, stack.agent_a) if c["id"] == done["checkInId"]]
    assert (record["status"], record["sourceUrn"], record["inputText"]) == (
        "LOADED", done["sourceUrn"], TEXT,
    )  # fmt: skip
    assert all(c["id"] != done["checkInId"] for c in check_ins(stack, stack.agent_b))


async def test_a_dry_run_and_an_answer_that_stays_invalid(stack: Stack) -> None:
    stack.fake.script([VALID])
    async with mcp_session(stack.server.url, stack.agent_b) as session:
        dry = await call(session, "structure_knowledge", text="Bob runs CI.", dry_run=True)
        stack.fake.replier = lambda body: '{"pieces": []}'
        try:
            failed = await session.call_tool("structure_knowledge", {"text": "Bob runs CI."})
        finally:
            stack.fake.replier = None
    assert (dry["status"], dry["loaded"]) == ("DRY_RUN", None)
    assert failed.is_error
    message = error_text(failed)
    assert "MODEL_OUTPUT_INVALID: qwen2.5:7b gave no valid answer in 4 attempts" in message
    statuses = {c["id"]: c["status"] for c in check_ins(stack, stack.agent_b)}
    assert statuses[dry["checkInId"]] == "DRY_RUN"
    [invalid] = [i for i, s in statuses.items() if s == "INVALID"]
    assert f"(check-in {invalid})" in message

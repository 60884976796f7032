"""The MCP procedure tools over real HTTP: a client-wide agent key saves a procedure and
records a run (find_procedures then ranks it by it); a project key or a procedure without
steps is refused naming the field, and another client cannot record a run of it."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.mcp_session import call, mcp_session, refusal
from tests.support.server_process import Server, create_key

pytestmark = pytest.mark.e2e

STEPS = [{"agent": "ops", "action": "roll_out", "parameters": {"mode": "canary"}}]


@dataclass(frozen=True)
class ProcedureKeys:
    owner_a: str  # client-wide agent key of client A
    project_a: str  # an agent of client A's project web
    owner_b: str


@pytest.fixture(scope="module")
def keys(migrated_settings: Settings) -> ProcedureKeys:
    a, b = f"mcp-proc-a-{uuid.uuid4().hex[:6]}", f"mcp-proc-b-{uuid.uuid4().hex[:6]}"

    def key(scope: Scope) -> str:
        return asyncio.run(create_key(migrated_settings, scope, Role.AGENT))

    return ProcedureKeys(key(Scope(a)), key(Scope(a, "web")), key(Scope(b)))


async def test_a_procedure_is_saved_and_its_runs_recorded(
    server: Server, keys: ProcedureKeys
) -> None:
    async with mcp_session(server.url, keys.owner_a) as session:
        saved = await call(
            session,
            "save_procedure",
            trigger_pattern="roll out pangolin",
            description="Canary roll-out of pangolin",
            steps=STEPS,
            agent_id="deployer",
        )
        ran = await call(session, "record_procedure_run", id=saved["id"], success=True)
        failed = await call(session, "record_procedure_run", id=saved["id"], success=False)
        [found] = (await call(session, "find_procedures", trigger_pattern="roll out pangolin"))[
            "procedures"
        ]
    assert (saved["version"], saved["source"], saved["agentId"]) == (1, "LEARNED", "deployer")
    assert saved["steps"] == STEPS and saved["usageCount"] == 0
    assert (ran["usageCount"], ran["successRate"]) == (1, 1.0)
    assert (failed["usageCount"], failed["successRate"]) == (2, 0.5)
    assert found["procedure"]["id"] == saved["id"] and found["procedure"]["usageCount"] == 2


async def test_a_project_key_or_a_procedure_without_steps_is_refused(
    server: Server, keys: ProcedureKeys
) -> None:
    async with mcp_session(server.url, keys.project_a) as session:
        project = await session.call_tool(
            "save_procedure",
            {"trigger_pattern": "t", "description": "d", "steps": STEPS},
        )
    async with mcp_session(server.url, keys.owner_a) as session:
        empty = await session.call_tool(
            "save_procedure", {"trigger_pattern": "t", "description": "d", "steps": []}
        )
    assert refusal(project).startswith("OUT_OF_SCOPE: procedures belong to the whole client")
    assert refusal(project).endswith("(field: scope)")
    assert refusal(empty).startswith("INVALID") and refusal(empty).endswith("(field: steps)")


async def test_another_client_cannot_record_a_run_of_it(
    server: Server, keys: ProcedureKeys
) -> None:
    async with mcp_session(server.url, keys.owner_a) as session:
        saved = await call(
            session,
            "save_procedure",
            trigger_pattern="feed the pangolin",
            description="Client A's own",
            steps=STEPS,
        )
    async with mcp_session(server.url, keys.owner_b) as other:
        run = await other.call_tool("record_procedure_run", {"id": saved["id"], "success": True})
        found = await call(other, "find_procedures", trigger_pattern="feed the pangolin")
    assert refusal(run).startswith("NOT_FOUND") and refusal(run).endswith("(field: id)")
    assert found["procedures"] == []
    async with mcp_session(server.url, keys.owner_a) as session:
        [own] = (await call(session, "find_procedures", trigger_pattern="feed the pangolin"))[
            "procedures"
        ]
    assert own["procedure"]["usageCount"] == 0  # B's attempt counted nothing

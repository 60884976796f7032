"""A scripted agent (no model) over MCP across two sessions, on a server with queue workers:
in the first it learns a user's preference, records a task outcome, saves a procedure and
uploads a file, following each queued job to its end; the second session's get_context for
the same user and task holds all of it, and another client's agent finds none of it."""

from __future__ import annotations

import asyncio
import base64
import uuid
from typing import Any

import pytest
from mcp.client import ClientSession

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.mcp_session import call, mcp_session
from tests.support.server_process import Server, create_key

pytestmark = pytest.mark.e2e

USER = "user:ines"
QUERY = "deploy the heronwatch service"
NOTES = b"# Heronwatch deploys\n\nHeronwatch deploys need the kestrel feature flag off first.\n"


async def _ended(session: ClientSession, job_id: str) -> str:
    """The status a job ends in (``job_status`` until it leaves QUEUED and RUNNING)."""
    for _ in range(300):
        job = await call(session, "job_status", job_id=job_id)
        if job["status"] not in ("QUEUED", "RUNNING"):
            return str(job["status"])
        await asyncio.sleep(0.2)
    raise AssertionError(f"job {job_id} still {job['status']}")


async def _first_session(session: ClientSession) -> tuple[dict[str, Any], dict[str, Any]]:
    """What the agent does during its first task; the outcome and upload it queued."""
    await call(session, "store_knowledge", subject="deploy window", category="PREFERENCE",
               content="Ines deploys heronwatch only before noon", user_key=USER)  # fmt: skip
    outcome = await call(
        session, "record_task_outcome", task_id="HW-7", category="SINGLE_TASK", action="CODE",
        summary="Moved heronwatch deploys to blue-green", final_result="Merged",
        key_decisions=["blue-green for heronwatch"], artifacts=["deploy/heronwatch.yaml"],
    )  # fmt: skip
    await call(
        session, "save_procedure", trigger_pattern=QUERY,
        description="Deploy heronwatch with blue-green",
        steps=[{"agent": "ops", "action": "switch the heronwatch traffic"}], user_key=USER,
    )  # fmt: skip
    uploaded = await call(session, "ingest_file", filename="heronwatch.md",
                          content=base64.b64encode(NOTES).decode())  # fmt: skip
    return outcome, uploaded


async def test_the_next_session_holds_what_the_agent_learned(
    working_server: Server, migrated_settings: Settings
) -> None:
    client = f"agent-sessions-{uuid.uuid4().hex[:6]}"
    key = await create_key(migrated_settings, Scope(client), Role.AGENT)
    other = await create_key(migrated_settings, Scope(f"{client}-other"), Role.AGENT)
    async with mcp_session(working_server.url, key) as first:
        outcome, uploaded = await _first_session(first)
        assert outcome["significant"] is True, outcome
        for job_id in (outcome["ingestion"]["jobId"], uploaded["jobId"]):
            assert await _ended(first, job_id) == "INDEXED", job_id
    async with mcp_session(working_server.url, key) as second:
        context = await call(second, "get_context", query=QUERY, user_key=USER, limit=20)
    text = context["text"]
    for learned in (
        "Ines deploys heronwatch only before noon",  # the preference
        "Moved heronwatch deploys to blue-green",  # the task outcome
        "Deploy heronwatch with blue-green",  # the procedure
        "kestrel feature flag off first",  # the uploaded file
    ):
        assert learned in text, (learned, text)
    async with mcp_session(working_server.url, other) as stranger:
        theirs = await call(stranger, "get_context", query=QUERY, user_key=USER, limit=20)
    assert "heronwatch" not in theirs["text"].lower()

"""The MCP ``ingest_file`` tool on a real server with queue workers: a base64 PDF queued,
indexed (observed at the writer's time) and downloadable by its client only; a bad file a
tool error naming its problem; bad base64 or a malformed time an error naming the field."""

from __future__ import annotations

import asyncio
import base64
import uuid

import httpx
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.file_samples import text_pdf
from tests.support.mcp_session import call, error_text, mcp_session
from tests.support.server_process import Server, create_key

pytestmark = pytest.mark.e2e

STATUS = "query($id: ID!) { ingestionStatus(jobId: $id) { status lastError } }"


async def finished(server: Server, key: str, job_id: str) -> str:
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        for _ in range(400):
            answer = await http.post(
                "/graphql", json={"query": STATUS, "variables": {"id": job_id}},
                headers={"Authorization": f"Bearer {key}"},
            )  # fmt: skip
            job = answer.json()["data"]["ingestionStatus"]
            if job["status"] not in ("QUEUED", "RUNNING"):
                return str(job["status"])
            await asyncio.sleep(0.1)
    raise AssertionError("the file job did not finish")


async def test_ingest_file_queues_indexes_and_keeps_the_original(
    working_server: Server, migrated_settings: Settings
) -> None:
    tenant = f"mcp-files-{uuid.uuid4().hex[:6]}"
    key = await create_key(migrated_settings, Scope(tenant), Role.AGENT)
    other = await create_key(migrated_settings, Scope(f"{tenant}-x"), Role.AGENT)
    data = text_pdf(["The pager rota changes on Mondays."])
    async with mcp_session(working_server.url, key) as session:
        queued = await call(
            session, "ingest_file", content=base64.b64encode(data).decode(),
            filename="rota.pdf", tags=["ops"], observed_at="2024-03-01T09:00:00Z",
        )  # fmt: skip
        assert queued["file"]["mediaType"] == "application/pdf"
        assert queued["file"]["sourceUrn"] == "file:rota.pdf"
        assert await finished(working_server, key, queued["jobId"]) == "INDEXED"
        found = await call(session, "search_knowledge", query="pager rota", mode="KEYWORD")
        assert "file:rota.pdf" in str(found["hits"]), found
        # The writer's time wins over the PDF's own date.
        assert "'observedAt': '2024-03-01T09:00:00+00:00'" in str(found["hits"]), found

        refused = await session.call_tool(
            "ingest_file", {"content": base64.b64encode(b"\x00\xff" * 50).decode(),
                            "filename": "x.bin"},
        )  # fmt: skip
        assert refused.is_error and "UNSUPPORTED_TYPE" in error_text(refused)
        garbled = await session.call_tool("ingest_file", {"content": "@@@", "filename": "a"})
        assert garbled.is_error and "(field: content)" in error_text(garbled)
        untimely = await session.call_tool(
            "ingest_file", {"content": base64.b64encode(data).decode(), "filename": "b.pdf",
                            "observed_at": "last Tuesday"},
        )  # fmt: skip
        assert untimely.is_error and "INVALID" in error_text(untimely)
        assert "(field: observed_at)" in error_text(untimely), error_text(untimely)

    url = working_server.url + queued["file"]["downloadUrl"]
    async with httpx.AsyncClient(timeout=30) as http:
        mine = await http.get(url, headers={"Authorization": f"Bearer {key}"})
        theirs = await http.get(url, headers={"Authorization": f"Bearer {other}"})
    assert mine.status_code == 200 and mine.content == data
    assert theirs.status_code == 404

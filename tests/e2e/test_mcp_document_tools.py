"""The MCP tool request_ingestion over real HTTP: many documents queued in one call, one
result per document in order (a refused document an error of its own, naming its field),
the same version again a DUPLICATE, too many documents or a read-only key refused whole,
and another client's same document a job of its own."""

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


@dataclass(frozen=True)
class DocumentKeys:
    agent_a: str
    agent_b: str
    reader_a: str


@pytest.fixture(scope="module")
def keys(migrated_settings: Settings) -> DocumentKeys:
    a, b = f"mcp-docs-a-{uuid.uuid4().hex[:6]}", f"mcp-docs-b-{uuid.uuid4().hex[:6]}"

    def key(scope: Scope, role: Role) -> str:
        return asyncio.run(create_key(migrated_settings, scope, role))

    return DocumentKeys(
        key(Scope(a, "web"), Role.AGENT), key(Scope(b, "web"), Role.AGENT), key(Scope(a), Role.UI)
    )


def document(urn: str, **more: object) -> dict[str, object]:
    return {
        "source_urn": urn,
        "kind": "wiki_page",
        "content": f"About {urn}.",
        "source_kind": "wiki",
        "content_version": "rev-1",
        **more,
    }


async def test_documents_are_queued_one_result_each_in_order(
    server: Server, keys: DocumentKeys
) -> None:
    batch = [document("wiki:alpha"), document("wiki:beta", priority=42), document("wiki:gamma")]
    async with mcp_session(server.url, keys.agent_a) as session:
        first = (await call(session, "request_ingestion", documents=batch))["results"]
        again = (await call(session, "request_ingestion", documents=batch[:1]))["results"]
    alpha, beta, gamma = first
    assert (alpha["status"], gamma["status"]) == ("QUEUED", "QUEUED")
    assert alpha["jobId"] != gamma["jobId"] and alpha["position"] >= 1
    assert beta["error"]["code"] == "INVALID" and beta["error"]["field"] == "priority"
    assert again == [
        {"jobId": alpha["jobId"], "status": "DUPLICATE", "position": alpha["position"]}
    ]


async def test_too_many_documents_or_a_read_only_key_are_refused(
    server: Server, keys: DocumentKeys
) -> None:
    many = [document(f"wiki:many-{i}") for i in range(1001)]
    async with mcp_session(server.url, keys.agent_a) as session:
        too_many = await session.call_tool("request_ingestion", {"documents": many})
    async with mcp_session(server.url, keys.reader_a) as session:
        read_only = await session.call_tool(
            "request_ingestion", {"documents": [document("wiki:delta")]}
        )
    assert refusal(too_many).startswith("TOO_LARGE: at most 1000 documents per call")
    assert refusal(too_many).endswith("(field: documents)")
    assert refusal(read_only).startswith("OUT_OF_SCOPE")


async def test_another_client_gets_a_job_of_its_own(server: Server, keys: DocumentKeys) -> None:
    same = [document("wiki:shared-name")]
    async with mcp_session(server.url, keys.agent_a) as session:
        [mine] = (await call(session, "request_ingestion", documents=same))["results"]
    async with mcp_session(server.url, keys.agent_b) as session:
        [theirs] = (await call(session, "request_ingestion", documents=same))["results"]
        seen = await session.call_tool("job_status", {"job_id": mine["jobId"]})
    assert (mine["status"], theirs["status"]) == ("QUEUED", "QUEUED")
    assert mine["jobId"] != theirs["jobId"]
    assert refusal(seen).startswith("NOT_FOUND")

"""The MCP source tools over real HTTP: purge_source removes an agent's document and what
only it supported; ingest_repository queues a repository under the server's roots (the same
commit again is the same job). Bad input is refused naming the field, and another client's
agent neither purges the document nor sees the repository's job."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.mcp_session import call, mcp_session, refusal
from tests.support.repository_escapes import small_repo
from tests.support.server_process import Server, create_key, start_server, stop_server

pytestmark = pytest.mark.e2e


@dataclass(frozen=True)
class SourceKeys:
    agent_a: str
    reader_a: str
    agent_b: str


@pytest.fixture(scope="module")
def keys(migrated_settings: Settings) -> SourceKeys:
    a, b = f"mcp-src-a-{uuid.uuid4().hex[:6]}", f"mcp-src-b-{uuid.uuid4().hex[:6]}"

    def key(scope: Scope, role: Role) -> str:
        return asyncio.run(create_key(migrated_settings, scope, role))

    return SourceKeys(
        key(Scope(a, "web"), Role.AGENT), key(Scope(a), Role.UI), key(Scope(b, "web"), Role.AGENT)
    )


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository root holding one small repository, ``shop``."""
    root = tmp_path_factory.mktemp("roots")
    small_repo(root / "shop", {"shop/cart.py": "def total(items):\n    return sum(items)\n"})
    return root


@pytest.fixture(scope="module")
def repo_server(
    migrated_settings: Settings, tmp_path_factory: pytest.TempPathFactory, repos: Path
) -> Iterator[Server]:
    """A server (no workers) that reads repositories under ``repos``."""
    log = tmp_path_factory.mktemp("repo-server") / "server.log"
    cache = tmp_path_factory.mktemp("repo-cache")
    process, running = start_server(
        migrated_settings,
        log,
        KENNING_REPOSITORY_ROOTS=str(repos),
        KENNING_REPOSITORY_DIR=str(cache),
    )
    yield running
    stop_server(process)


async def test_an_agent_purges_its_document(server: Server, keys: SourceKeys) -> None:
    async with mcp_session(server.url, keys.agent_a) as session:
        await call(
            session,
            "ingest_document",
            source_urn="doc:narwhal",
            kind="note",
            content="service:narwhal|depends_on|db:walrus",
        )
        purged = await call(session, "purge_source", source_urn="doc:narwhal")
        again = await call(session, "purge_source", source_urn="doc:narwhal")
        node = await call(session, "get_node", key="service:narwhal")
    assert purged["sources"] == 1 and purged["chunks"] >= 1 and purged["edgesDeleted"] == 1
    assert again["sources"] == 0  # idempotent: nothing left to remove
    assert node == {"node": None, "edges": []}


async def test_a_purge_is_refused_naming_the_field(server: Server, keys: SourceKeys) -> None:
    async with mcp_session(server.url, keys.agent_a) as session:
        empty = await session.call_tool("purge_source", {"source_urn": "  "})
    async with mcp_session(server.url, keys.reader_a) as session:
        read_only = await session.call_tool("purge_source", {"source_urn": "doc:narwhal"})
    assert refusal(empty).startswith("INVALID") and refusal(empty).endswith("(field: sourceUrn)")
    assert refusal(read_only).startswith("OUT_OF_SCOPE")


async def test_another_client_cannot_purge_the_document(server: Server, keys: SourceKeys) -> None:
    async with mcp_session(server.url, keys.agent_a) as session:
        await call(
            session,
            "ingest_document",
            source_urn="doc:beluga",
            kind="note",
            content="service:beluga|depends_on|db:orca",
        )
    async with mcp_session(server.url, keys.agent_b) as other:
        purged = await call(other, "purge_source", source_urn="doc:beluga")
    assert purged["sources"] == 0 and purged["chunks"] == 0
    async with mcp_session(server.url, keys.agent_a) as session:
        node = (await call(session, "get_node", key="service:beluga"))["node"]
    assert node is not None


async def test_a_repository_is_queued_once_per_commit(
    repo_server: Server, keys: SourceKeys, repos: Path
) -> None:
    async with mcp_session(repo_server.url, keys.agent_a) as session:
        queued = await call(session, "ingest_repository", path=str(repos / "shop"))
        again = await call(session, "ingest_repository", path=str(repos / "shop"))
        job = await call(session, "job_status", job_id=queued["jobId"])
    assert queued["status"] == "QUEUED" and again == {**queued, "status": "DUPLICATE"}
    assert (job["status"], job["lane"], job["priority"]) == ("QUEUED", "BULK", 5)
    async with mcp_session(repo_server.url, keys.agent_b) as other:
        seen = await other.call_tool("job_status", {"job_id": queued["jobId"]})
    assert refusal(seen).startswith("NOT_FOUND")


async def test_a_bad_repository_request_is_refused_naming_the_field(
    repo_server: Server, keys: SourceKeys, tmp_path: Path
) -> None:
    async with mcp_session(repo_server.url, keys.agent_a) as session:
        both = await session.call_tool(
            "ingest_repository", {"path": "/srv/x", "git_url": "https://example.com/x.git"}
        )
        outside = await session.call_tool("ingest_repository", {"path": str(tmp_path)})
        command = await session.call_tool("ingest_repository", {"git_url": "ext::sh -c id"})
        priority = await session.call_tool(
            "ingest_repository", {"git_url": "https://example.com/x.git", "priority": 1}
        )
    assert refusal(both).startswith("INVALID") and refusal(both).endswith("(field: path)")
    assert refusal(outside).startswith("INVALID") and refusal(outside).endswith("(field: path)")
    assert refusal(command).startswith("INVALID") and refusal(command).endswith("(field: gitUrl)")
    assert refusal(priority).endswith("(field: priority)")

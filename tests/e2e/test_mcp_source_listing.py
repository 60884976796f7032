"""The MCP tools over sources a key can see and manage, over real HTTP: list_sources shows an
agent its own sources page by page (another client's connection lists nothing);
purge_repository removes a queued branch's job and refuses a bad name naming the field;
purge_crawl answers another client's job as an unknown one and a job that is no crawl
naming jobId; a read-only key may list but not purge."""

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
class ListingKeys:
    agent_a: str
    reader_a: str
    agent_b: str


@pytest.fixture(scope="module")
def keys(migrated_settings: Settings) -> ListingKeys:
    a, b = f"mcp-list-a-{uuid.uuid4().hex[:6]}", f"mcp-list-b-{uuid.uuid4().hex[:6]}"

    def key(scope: Scope, role: Role) -> str:
        return asyncio.run(create_key(migrated_settings, scope, role))

    return ListingKeys(key(Scope(a), Role.AGENT), key(Scope(a), Role.UI), key(Scope(b), Role.AGENT))


@pytest.fixture(scope="module")
def listing_server(
    migrated_settings: Settings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Server, Path]]:
    """A server with no workers (queued jobs stay queued) reading repositories under a root."""
    root = tmp_path_factory.mktemp("list-roots")
    small_repo(root / "shop", {"shop/cart.py": "def total(items):\n    return sum(items)\n"})
    log = tmp_path_factory.mktemp("list-server") / "server.log"
    process, running = start_server(
        migrated_settings,
        log,
        KENNING_QUEUE_WORKERS="0",
        KENNING_REPOSITORY_ROOTS=str(root),
        KENNING_REPOSITORY_DIR=str(tmp_path_factory.mktemp("list-cache")),
    )
    yield running, root
    stop_server(process)


async def test_an_agent_lists_its_sources_and_purges_a_repository(
    listing_server: tuple[Server, Path], keys: ListingKeys
) -> None:
    server, root = listing_server
    async with mcp_session(server.url, keys.agent_a) as session:
        for name in ("doc:one", "doc:two", "doc:three"):
            await call(session, "ingest_document", source_urn=name, kind="note", content=name)
        first = await call(session, "list_sources", urn_prefix="doc:", first=2)
        rest = await call(session, "list_sources", urn_prefix="doc:", after=first["endCursor"])
        queued = await call(session, "ingest_repository", path=str(root / "shop"))
        purged = await call(session, "purge_repository", name="shop", branch="main")
        bad = await session.call_tool("purge_repository", {"name": "../x", "branch": "main"})
        not_crawl = await session.call_tool("purge_crawl", {"job_id": queued["jobId"]})
    assert [s["sourceUrn"] for s in first["sources"]] == ["doc:one", "doc:three"]
    assert first["hasNextPage"] and [s["sourceUrn"] for s in rest["sources"]] == ["doc:two"]
    assert first["sources"][0]["chunkCount"] == 1 and first["sources"][0]["storedFile"] is None
    assert (purged["sources"], purged["jobsCancelled"]) == (0, 1)
    assert refusal(bad).startswith("INVALID") and refusal(bad).endswith("(field: name)")
    assert refusal(not_crawl).startswith("INVALID") and refusal(not_crawl).endswith(
        "(field: jobId)"
    )

    async with mcp_session(server.url, keys.agent_b) as other:
        theirs = await call(other, "list_sources", urn_prefix="doc:")
        hidden = await other.call_tool("purge_crawl", {"job_id": queued["jobId"]})
        unknown = await other.call_tool("purge_crawl", {"job_id": "no-such-job"})
    assert theirs["sources"] == []
    assert refusal(hidden).replace(queued["jobId"], "X") == refusal(unknown).replace(
        "no-such-job", "X"
    )
    assert refusal(hidden).startswith("NOT_FOUND")

    async with mcp_session(server.url, keys.reader_a) as reader:
        seen = await call(reader, "list_sources", urn_prefix="doc:")
        refused = await reader.call_tool("purge_repository", {"name": "shop", "branch": "main"})
    assert len(seen["sources"]) == 3 and refusal(refused).startswith("OUT_OF_SCOPE")

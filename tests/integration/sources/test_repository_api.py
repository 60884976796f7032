"""ingestRepository end to end on the real stack: a generated repository queued through the
API and run by the registered "repository" runner; class nodes with has_method evidence; a
ticket's ``file:UserService.kt`` meeting the code node through the aliases; a second commit
re-ingested incrementally with the deleted file's nodes gone; a file:// clone; every refusal
naming its field (through variables); another tenant seeing nothing; what each run stores
observed at its commit's author date."""

from __future__ import annotations

import socket
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import redis.asyncio as aioredis

from kenning.domain.access.principal import Role
from kenning.domain.queue.jobs import JobStatus
from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.support.code_repo import FIRST_DATE, SECOND_DATE, git, make_code_repo
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api
from tests.support.queue_api import agent
from tests.support.repository_api import ingest_repo, run_queue

pytestmark = pytest.mark.integration

STATUS = """query S($id: ID!) { ingestionStatus(jobId: $id) {
  status lane priority lastError sourceUrn } }"""
NODE = """query N($key: String!, $dir: Direction!) { node(key: $key) {
  key properties edges(direction: $dir) { edgeType fromKey toKey evidence { sourceUrn content } }
} }"""
FIND = """query F($q: String!) { findNodes(query: $q) {
  ... on FoundNodes { matches { key } } } }"""
OBSERVED = """query O($key: String!) {
  chunksByKind(kind: "code", limit: 100) { sourceUrn observedAt }
  node(key: $key) { edges(direction: OUT) { toKey validFrom } } }"""
INGEST = """mutation I($input: IngestInput!) { ingest(input: $input) {
  __typename ... on IngestSuccess { status } } }"""

ACME, GLOBEX = agent("acme"), agent("globex")
KT = "shop@main/src/main/kotlin/com/acme"
USER_SERVICE = f"class:{KT}/userservice.kt#userservice"


async def node(api: Api, key: str, direction: str = "OUT") -> dict[str, Any] | None:
    found: dict[str, Any] | None = (await api(NODE, key=key, dir=direction))["node"]
    return found


async def test_a_repository_through_the_api_then_a_commit_deleting_a_file(
    repo_runtime: Runtime, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path / "repos" / "shop")
    git(repo.root, "reset", "-q", "--hard", repo.first)
    api = Api(repo_runtime, ACME)
    handle = await ingest_repo(api, path=str(repo.root))
    assert (handle["__typename"], handle["status"]) == ("IngestionHandle", "QUEUED")
    assert await run_queue(repo_runtime) == [JobStatus.INDEXED]
    job = (await api(STATUS, id=handle["jobId"]))["ingestionStatus"]
    assert (job["status"], job["lane"], job["priority"]) == ("INDEXED", "BULK", 5)
    assert job["sourceUrn"] == "code:shop@main"
    again = await ingest_repo(api, path=str(repo.root))
    assert again["status"] == "SKIPPED"

    cls = await node(api, USER_SERVICE)
    assert cls is not None
    methods = {e["toKey"]: e["evidence"] for e in cls["edges"] if e["edgeType"] == "has_method"}
    assert set(methods) == {f"method:{KT}/userservice.kt#userservice.find",
                            f"method:{KT}/userservice.kt#userservice.save"}  # fmt: skip
    for evidence in methods.values():
        assert evidence and all(
            c["sourceUrn"] == "code:shop@main:src/main/kotlin/com/acme/UserService.kt"
            for c in evidence
        )
    assert any(
        "fun save" in c["content"] for c in methods[f"method:{KT}/userservice.kt#userservice.save"]
    )
    branch = await node(api, "branch:shop/main")
    assert branch is not None and branch["properties"]["lastCommit"] == repo.first

    ticket = {"sourceUrn": "jira:SHOP-1", "kind": "ticket", "mainNodeKey": "ticket:SHOP-1",
              "content": "Saving users fails in file:UserService.kt",
              "relationships": ["ticket:SHOP-1|mentions|file:UserService.kt"]}  # fmt: skip
    assert (await api(INGEST, input=ticket))["ingest"]["status"] == "INDEXED"
    file_node = await node(api, f"file:{KT}/userservice.kt", "IN")
    assert file_node is not None
    assert ("ticket:shop-1", "mentions") in {
        (e["fromKey"], e["edgeType"]) for e in file_node["edges"]
    }
    found = (await api(FIND, q="UserService"))["findNodes"]["matches"]
    assert USER_SERVICE in {m["key"] for m in found}

    git(repo.root, "reset", "-q", "--hard", repo.second)
    second = await ingest_repo(api, path=str(repo.root), branch="main")
    assert second["status"] == "QUEUED" and second["jobId"] != handle["jobId"]
    assert await run_queue(repo_runtime) == [JobStatus.INDEXED]
    assert await node(api, "file:shop@main/web/util.js") is None
    assert await node(api, "class:shop@main/web/util.js#reader") is None
    assert await node(api, "function:shop@main/app/service.py#extra") is not None
    branch = await node(api, "branch:shop/main")
    assert branch is not None and branch["properties"]["lastCommit"] == repo.second
    # Unchanged files were not re-read: the class keeps its evidence from the first commit.
    assert await node(api, USER_SERVICE) == cls

    other = Api(repo_runtime, GLOBEX)
    assert await node(other, USER_SERVICE) is None
    assert (await other(STATUS, id=handle["jobId"]))["ingestionStatus"] is None
    assert (await other(FIND, q="UserService"))["findNodes"]["matches"] == []


async def test_a_file_url_is_cloned_into_the_cache(repo_runtime: Runtime, tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "repos" / "origin")
    api = Api(repo_runtime, ACME)
    handle = await ingest_repo(api, gitUrl=f"file://{repo.root}", name="shop")
    assert handle["status"] == "QUEUED", handle
    assert await run_queue(repo_runtime) == [JobStatus.INDEXED]
    assert any((tmp_path / "cache").iterdir())
    assert await node(api, "function:shop@main/app/service.py#extra") is not None
    branch = await node(api, "branch:shop/main")
    assert branch is not None and branch["properties"]["lastCommit"] == repo.second


@pytest.mark.parametrize(
    ("input", "member", "field"),
    [
        ({"path": "{outside}"}, "ValidationError", "path"),
        ({"path": "{repo}/../../outside"}, "ValidationError", "path"),
        ({"path": "relative/shop"}, "ValidationError", "path"),
        ({}, "ValidationError", "path"),
        ({"path": "{repo}", "gitUrl": "file://{repo}"}, "ValidationError", "path"),
        ({"gitUrl": "ext::sh -c touch% /tmp/pwned"}, "ValidationError", "gitUrl"),
        ({"gitUrl": "ftp://example.com/shop.git"}, "ValidationError", "gitUrl"),
        ({"gitUrl": "ssh://-oProxyCommand=x/shop"}, "ValidationError", "gitUrl"),
        ({"gitUrl": "file://{outside}"}, "ValidationError", "gitUrl"),
        ({"path": "{repo}", "branch": "a..b"}, "ValidationError", "branch"),
        ({"path": "{repo}", "branch": "nope"}, "NotFoundError", "branch"),
        ({"path": "{repo}", "priority": 1}, "ValidationError", "priority"),
        ({"path": "{repo}", "name": "bad name!"}, "ValidationError", "repository"),
        ({"path": "{repo}", "project": "web", "scope": {"projectId": "api"}},
         "ValidationError", "project"),
    ],
)  # fmt: skip
async def test_refusals_name_the_field_and_queue_nothing(
    repo_runtime: Runtime, pool: asyncpg.Pool, tmp_path: Path,
    input: dict[str, Any], member: str, field: str,
) -> None:  # fmt: skip
    repo = make_code_repo(tmp_path / "repos" / "shop")
    outside = make_code_repo(tmp_path / "elsewhere" / "secret")
    paths = {"{repo}": str(repo.root), "{outside}": str(outside.root)}
    filled = {k: _fill(v, paths) for k, v in input.items()}
    result = await ingest_repo(Api(repo_runtime, ACME), **filled)
    assert (result["__typename"], result["field"]) == (member, field), result
    assert await pool.fetchval("SELECT count(*) FROM ingestion_jobs") == 0


def _fill(value: Any, paths: dict[str, str]) -> Any:
    if isinstance(value, str):
        for marker, path in paths.items():
            value = value.replace(marker, path)
    return value


async def test_no_roots_refuses_every_local_path(
    pool: asyncpg.Pool, migrated_settings: Settings, embedder: CountingEmbedder, clean: None,
    tmp_path: Path,
) -> None:  # fmt: skip
    repo = make_code_repo(tmp_path / "shop")
    redis = aioredis.from_url(migrated_settings.redis_url)
    runtime = Runtime(settings=migrated_settings, pool=pool, redis=redis, embedder=embedder)
    try:
        api = Api(runtime, ACME)
        for input in ({"path": str(repo.root)}, {"gitUrl": f"file://{repo.root}"}):
            result = await ingest_repo(api, **input)
            assert result["__typename"] == "ValidationError"
            assert "KENNING_REPOSITORY_ROOTS" in result["message"]
    finally:
        await redis.aclose()


async def test_a_read_only_key_may_not_queue_a_repository(
    repo_runtime: Runtime, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path / "repos" / "shop")
    result = await ingest_repo(Api(repo_runtime, agent("acme", Role.UI)), path=str(repo.root))
    assert result["__typename"] == "ScopeError"


async def test_a_project_given_alone_is_one_of_the_callers_client(
    repo_runtime: Runtime, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path / "repos" / "shop")
    api = Api(repo_runtime, ACME)
    handle = await ingest_repo(api, path=str(repo.root), project="web")
    assert (handle["__typename"], handle["status"]) == ("IngestionHandle", "QUEUED")
    scope = await repo_runtime.pool.fetchrow(
        "SELECT client_id, project_id FROM ingestion_jobs WHERE id = $1", handle["jobId"]
    )
    assert scope is not None and tuple(scope) == ("acme", "web")


async def test_a_git_url_on_the_servers_own_network_is_refused_without_reaching_it(
    repo_runtime: Runtime, pool: asyncpg.Pool
) -> None:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.3)
    port = server.getsockname()[1]
    try:
        for url in (f"http://127.0.0.1:{port}/x.git", f"http://localhost:{port}/x.git",
                    "http://169.254.169.254/latest/x.git", f"https://[::1]:{port}/x"):  # fmt: skip
            result = await ingest_repo(Api(repo_runtime, ACME), gitUrl=url)
            assert (result["__typename"], result["field"]) == ("ValidationError", "gitUrl")
            assert str(port) not in result["message"] and "connect" not in result["message"]
        with pytest.raises(TimeoutError):
            server.accept()
    finally:
        server.close()
    assert await pool.fetchval("SELECT count(*) FROM ingestion_jobs") == 0


async def test_private_git_hosts_are_reached_when_the_server_allows_them(
    repo_runtime: Runtime, pool: asyncpg.Pool, embedder: CountingEmbedder
) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens: git's connection is refused
    settings = repo_runtime.settings.model_copy(update={"repository_allow_private": True})
    redis = aioredis.from_url(settings.redis_url)
    try:
        runtime = Runtime(settings=settings, pool=pool, redis=redis, embedder=embedder)
        result = await ingest_repo(Api(runtime, ACME), gitUrl=f"http://127.0.0.1:{port}/x")
    finally:
        await redis.aclose()
    assert (result["__typename"], result["field"]) == ("ValidationError", "gitUrl")
    assert result["message"] == "could not reach the repository"


async def _observed(api: Api, key: str) -> tuple[dict[str, set[str]], dict[str, str]]:
    """Each code source's chunks' observedAt, and ``key``'s out-edges' validFrom by target."""
    found = await api(OBSERVED, key=key)
    chunks: dict[str, set[str]] = {}
    for chunk in found["chunksByKind"]:
        chunks.setdefault(chunk["sourceUrn"], set()).add(chunk["observedAt"])
    return chunks, {e["toKey"]: e["validFrom"] for e in found["node"]["edges"]}


async def test_each_run_is_observed_at_its_commits_author_date(
    repo_runtime: Runtime, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path / "repos" / "shop")
    git(repo.root, "reset", "-q", "--hard", repo.first)
    api = Api(repo_runtime, ACME)
    await ingest_repo(api, path=str(repo.root))
    assert await run_queue(repo_runtime) == [JobStatus.INDEXED]
    service = "file:shop@main/app/service.py"
    chunks, edges = await _observed(api, service)
    authored = _utc(FIRST_DATE)
    assert "code:shop@main:app/service.py" in chunks
    assert all(times == {authored} for times in chunks.values()), chunks
    assert edges and set(edges.values()) == {authored}

    git(repo.root, "reset", "-q", "--hard", repo.second)
    await ingest_repo(api, path=str(repo.root), branch="main")
    assert await run_queue(repo_runtime) == [JobStatus.INDEXED]
    chunks, edges = await _observed(api, service)
    assert chunks["code:shop@main:app/service.py"] == {_utc(SECOND_DATE)}
    assert chunks["code:shop@main:app/base.py"] == {authored}  # unchanged: not re-read
    assert edges["function:shop@main/app/service.py#extra"] == _utc(SECOND_DATE)


def _utc(text: str) -> str:
    """``text`` as GraphQL spells a UTC time."""
    return datetime.fromisoformat(text).astimezone(UTC).isoformat()

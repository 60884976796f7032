"""Repository roots hold against git itself, on the real stack: a directory under the roots
that leads git to a repository outside them (a ``.git`` file or symlink, ``commondir``,
alternates, a symlinked object store, an enclosing repository, grafts) is refused through
``ingestRepository`` with the rule it breaks, as a path and as a ``file://`` URL, and no
chunk of the outside repository is stored; links that stay under the roots still work."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import asyncpg
import pytest
import redis.asyncio as aioredis

from kenning.domain.queue.jobs import JobStatus
from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.support import repository_escapes as escapes
from tests.support.code_repo import git
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api
from tests.support.queue_api import agent
from tests.support.repository_api import ingest_repo, run_queue
from tests.support.repository_escapes import SECRET, inside_repo, roots_of, secret_of

pytestmark = pytest.mark.integration

ACME = agent("acme")
FILES = """query F($key: String!) { node(key: $key) { key } }"""

REFUSED: list[tuple[Callable[[Path], Path], str]] = [
    (escapes.gitdir_file, ".git file"),
    (escapes.alternates, "objects/info/alternates"),
    (escapes.enclosing, "enclosing repository"),
    (escapes.dotgit_symlink, ".git symlink"),
    (escapes.commondir, "commondir"),
    (escapes.objects_symlink, "symlink in the git directory"),
    (escapes.nested_gitfile, ".git file"),
    (escapes.chained_gitfile, ".git file names no directory"),
    (escapes.grafts, "info/grafts"),
]


async def leaked(pool: asyncpg.Pool) -> int:
    """Stored chunks holding the outside repository's text."""
    found: int = await pool.fetchval(
        "SELECT count(*) FROM chunks WHERE content LIKE $1", f"%{SECRET}%"
    )
    return found


def asked(where: Path, via: str) -> dict[str, str]:
    return {"path": str(where)} if via == "path" else {"gitUrl": f"file://{where}"}


@pytest.mark.parametrize("via", ["path", "gitUrl"])
@pytest.mark.parametrize(("build", "rule"), REFUSED, ids=[build.__name__ for build, _ in REFUSED])
async def test_a_way_out_of_the_roots_is_refused_naming_its_rule(
    repo_runtime: Runtime,
    pool: asyncpg.Pool,
    tmp_path: Path,
    build: Callable[[Path], Path],
    rule: str,
    via: str,
) -> None:
    where = build(tmp_path)
    result = await ingest_repo(Api(repo_runtime, ACME), **asked(where, via))
    ran = await run_queue(repo_runtime)
    refused = (result["__typename"], result.get("field"), ran, await leaked(pool))
    assert refused == ("ValidationError", via, [], 0), result
    assert rule in result["message"], result["message"]


async def test_a_file_url_is_fetched_from_its_checked_git_directory_as_it_is(
    repo_runtime: Runtime, pool: asyncpg.Pool, tmp_path: Path
) -> None:
    secret, _ = secret_of(tmp_path)
    shop = inside_repo(tmp_path)
    # upload-pack, left to find the repository, tries <dir>/.git before <dir> itself.
    (shop / ".git/.git").write_text(f"gitdir: {secret / '.git'}\n")
    api = Api(repo_runtime, ACME)
    result = await ingest_repo(api, gitUrl=f"file://{shop}")
    assert result["__typename"] == "IngestionHandle", result
    assert (await run_queue(repo_runtime), await leaked(pool)) == ([JobStatus.INDEXED], 0)
    assert (await api(FILES, key="file:shop@main/shop.py"))["node"] is not None


@pytest.mark.parametrize("via", ["path", "gitUrl"])
async def test_a_partial_clone_never_fetches_from_its_promisor(
    repo_runtime: Runtime, pool: asyncpg.Pool, tmp_path: Path, via: str
) -> None:
    shop = escapes.promisor(tmp_path)
    result = await ingest_repo(Api(repo_runtime, ACME), **asked(shop, via))
    ran = await run_queue(repo_runtime)
    assert await leaked(pool) == 0
    if via == "path":  # Kenning's own read of the repository finds no such commit
        assert (result["__typename"], result["field"], ran) == ("NotFoundError", "branch", [])
    else:  # upload-pack lists the branch, then cannot send its objects
        assert ran in ([], [JobStatus.FAILED]), result
    assert not list((shop / ".git/objects/pack").glob("*.pack"))


async def test_the_servers_git_variables_do_not_steer_a_read(
    repo_runtime: Runtime, pool: asyncpg.Pool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret, commit = secret_of(tmp_path)
    shop = inside_repo(tmp_path)
    (shop / ".git/refs/heads/main").write_text(f"{commit}\n")
    for name in ("GIT_DIR", "GIT_COMMON_DIR"):
        monkeypatch.setenv(name, str(secret / ".git"))
    for name in ("GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"):
        monkeypatch.setenv(name, str(secret / ".git/objects"))
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", "/nonexistent")
    result = await ingest_repo(Api(repo_runtime, ACME), path=str(shop))
    assert (result["__typename"], result["field"]) == ("NotFoundError", "branch"), result
    assert (await run_queue(repo_runtime), await leaked(pool)) == ([], 0)


async def test_a_symlink_or_a_submodule_in_the_tree_is_not_followed(
    repo_runtime: Runtime, pool: asyncpg.Pool, tmp_path: Path
) -> None:
    secret, _ = secret_of(tmp_path)
    shop = inside_repo(tmp_path)
    (shop / "leak.py").symlink_to(secret / "vault.py")
    git(shop, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(secret), "lib")
    git(shop, "add", "leak.py")
    git(shop, "commit", "-q", "-m", "links")
    api = Api(repo_runtime, ACME)
    result = await ingest_repo(api, path=str(shop))
    assert result["__typename"] == "IngestionHandle", result
    assert await run_queue(repo_runtime) == [JobStatus.INDEXED]
    assert await leaked(pool) == 0
    assert (await api(FILES, key="file:shop@main/shop.py"))["node"] is not None
    assert (await api(FILES, key="file:shop@main/leak.py"))["node"] is None


async def test_links_that_stay_under_the_roots_are_read(
    repo_runtime: Runtime, tmp_path: Path
) -> None:
    shop = inside_repo(tmp_path)
    roots = roots_of(tmp_path)
    git(shop, "worktree", "add", "-q", "-b", "side", str(roots / "side"))
    git(roots, "clone", "-q", "--shared", str(shop), str(roots / "borrowed"))
    git(roots, "clone", "-q", "--bare", str(shop), str(roots / "bare.git"))
    (roots / "linked").symlink_to(shop)
    api = Api(repo_runtime, ACME)
    for name in ("side", "borrowed", "bare.git", "linked"):
        result = await ingest_repo(api, path=str(roots / name), name=name.split(".")[0])
        assert result["__typename"] == "IngestionHandle", (name, result)
    result = await ingest_repo(api, gitUrl=f"file://{roots / 'borrowed'}", name="cloned")
    assert result["__typename"] == "IngestionHandle", result
    assert await run_queue(repo_runtime) == [JobStatus.INDEXED] * 5
    for key in ("side@side", "borrowed@main", "bare@main", "linked@main", "cloned@main"):
        assert (await api(FILES, key=f"file:{key}/shop.py"))["node"] is not None, key


async def test_roots_given_through_a_symlink_or_dots_hold(
    pool: asyncpg.Pool,
    migrated_settings: Settings,
    embedder: CountingEmbedder,
    clean: None,
    tmp_path: Path,
) -> None:
    real = tmp_path / "real"
    shop = inside_repo(real)
    (tmp_path / "link").symlink_to(real / "repos")
    secret, _ = secret_of(tmp_path)
    (shop.parent / "sneaky").symlink_to(secret)
    roots = [str(tmp_path / "link"), f"{real}/other/../repos"]
    settings = migrated_settings.model_copy(update={"repository_roots": roots})
    redis = aioredis.from_url(settings.redis_url)
    try:
        api = Api(Runtime(settings=settings, pool=pool, redis=redis, embedder=embedder), ACME)
        for path in (shop, tmp_path / "link" / "shop"):
            assert (await ingest_repo(api, path=str(path)))["__typename"] == "IngestionHandle"
        for path in (shop.parent / "sneaky", shop / ".." / ".." / ".." / "outside" / "secret"):
            result = await ingest_repo(api, path=str(path))
            assert (result["__typename"], result["field"]) == ("ValidationError", "path")
            assert "not under a directory the server allows" in result["message"]
    finally:
        await redis.aclose()
    assert await leaked(pool) == 0

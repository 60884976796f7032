"""A generated repository through the real ``ingest_graph``: the class's neighbours in the
graph, an incremental re-ingest, a deleted file's nodes and edges gone after its purge, and
a ticket's ``file:UserService.kt`` meeting the code graph's node."""

from __future__ import annotations

import json
from pathlib import Path

import asyncpg

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.aliases import register_alias
from kenning.domain.ingestion.ingest import ingest
from kenning.domain.ingestion.request import IngestRequest, IngestStatus
from kenning.domain.sources.code import (
    CodeContext,
    PathIndex,
    apply_plan,
    code_aliases,
    code_plan,
    code_requests,
    parse_files,
    select_files,
)
from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.sources.code import GitCli, TreeSitterParser
from tests.support.code_repo import make_code_repo
from tests.support.graph_rows import graph_edges, graph_vertices

SCOPE = Scope("acme", "", "")
KT = "shop@main/src/main/kotlin/com/acme"


async def _ingest_commit(
    runtime: Runtime, git: GitCli, last: str | None, commit: str
) -> tuple[list[str], int]:
    files = select_files(git.tracked_files(commit))
    changes = git.changes(last, commit) if last else ()
    plan = code_plan("shop", "main", last_commit=last, current_commit=commit, selected=files,
                     changes=changes)  # fmt: skip
    parsed, _ = parse_files(git.read(commit, plan.ingest), TreeSitterParser())
    requests = code_requests(parsed, CodeContext("shop", "main", SCOPE, PathIndex(files)))
    applied = await apply_plan(requests, plan.purge, SCOPE, runtime.ingest_deps())
    assert all(o.rejected == () for o in applied.outcomes)
    assert all(o.outcome.status is IngestStatus.INDEXED for o in applied.outcomes)
    return [r.source_urn for r in requests], applied.purged.sources


async def test_repository_graph_incremental_and_purge(
    runtime: Runtime, pool: asyncpg.Pool, migrated_settings: Settings, tmp_path: Path
) -> None:
    repo = make_code_repo(tmp_path / "shop")
    git = GitCli(repo.root)
    graph = migrated_settings.graph_name
    ingested, _ = await _ingest_commit(runtime, git, None, repo.first)
    assert len(ingested) == 10
    edges = await graph_edges(pool, graph)
    user_service = f"class:{KT}/userservice.kt#userservice"
    neighbours = {(a, t, b) for _, a, t, b, _ in edges if user_service in (a, b)}
    assert neighbours == {
        (f"file:{KT}/userservice.kt", "contains", user_service),
        (user_service, "has_method", f"method:{KT}/userservice.kt#userservice.find"),
        (user_service, "has_method", f"method:{KT}/userservice.kt#userservice.save"),
        (user_service, "extends", f"class:{KT}/baseservice.kt#baseservice"),
        (user_service, "extends", f"class:{KT}/userservice.kt#auditable"),
    }
    evidence = {e for _, a, _, b, ev in edges if user_service in (a, b) for e in ev}
    rows = await pool.fetch("SELECT id, source_urn FROM chunks WHERE id = ANY($1)", list(evidence))
    assert {r["source_urn"] for r in rows} == {
        "code:shop@main:src/main/kotlin/com/acme/UserService.kt"
    }
    assert len(rows) == len(evidence)
    located = await pool.fetch(
        "SELECT metadata FROM chunks WHERE source_urn = $1 AND metadata->>'symbol' = $2",
        "code:shop@main:src/main/kotlin/com/acme/UserService.kt", "UserService.save",
    )  # fmt: skip
    assert len(located) == 1
    meta = json.loads(located[0]["metadata"])
    assert (meta["path"], meta["language"], meta["startLine"], meta["endLine"]) == (
        "src/main/kotlin/com/acme/UserService.kt", "kotlin", 9, 11,
    )  # fmt: skip

    util_keys = {"file:shop@main/web/util.js", "class:shop@main/web/util.js#reader"}
    assert util_keys <= {k for _, k in await graph_vertices(pool, graph)}
    reingested, purged = await _ingest_commit(runtime, git, repo.first, repo.second)
    assert sorted(reingested) == [
        "code:shop@main:app/service.py", "code:shop@main:web/service.ts",
        "code:shop@main:web/shared.ts",
    ]  # fmt: skip
    assert purged == 2
    keys = {k for _, k in await graph_vertices(pool, graph)}
    assert not util_keys & keys
    assert "function:shop@main/app/service.py#extra" in keys
    assert "class:shop@main/web/shared.ts#base" in keys
    edges = await graph_edges(pool, graph)
    assert not [e for e in edges if "web/util.js" in e[1] + e[3]]
    assert ("acme", "file:shop@main/web/service.ts", "imports", "file:shop@main/web/shared.ts") in {
        e[:4] for e in edges
    }
    chunks = await pool.fetchval(
        "SELECT count(*) FROM chunks WHERE source_urn = 'code:shop@main:web/util.js'"
    )
    assert chunks == 0


async def test_ticket_reference_meets_the_code_node(runtime: Runtime, tmp_path: Path) -> None:
    repo = make_code_repo(tmp_path / "shop")
    git = GitCli(repo.root)
    await _ingest_commit(runtime, git, None, repo.first)
    files = select_files(git.tracked_files(repo.first))
    aliases = code_aliases("shop", "main", files)
    for alias in ("file:userservice.kt",):
        await register_alias("acme", alias, aliases[alias], area="code", book=runtime.aliases,
                             store=runtime.store)  # fmt: skip
    ticket = IngestRequest(
        source_urn="jira:SHOP-1", kind="ticket", scope=SCOPE,
        content="Saving users fails in file:UserService.kt",
        main_node_key="ticket:SHOP-1",
        relationships=("ticket:SHOP-1|mentions|file:UserService.kt",),
    )  # fmt: skip
    outcome = await ingest(ticket, runtime.ingest_deps())
    assert ("ticket:shop-1", "mentions", f"file:{KT}/userservice.kt") in {
        (e.from_key, e.edge_type, e.to_key) for e in outcome.edges
    }

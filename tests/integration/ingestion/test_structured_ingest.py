"""`ingestGraph` and `ingestGitCommits` on the real stack."""

from __future__ import annotations

import logging

import asyncpg
import pytest

from kenning.settings import Settings
from tests.support.graph_rows import graph_edges, graph_vertices
from tests.support.graphql_api import Api
from tests.support.ingest_documents import INGEST, INGEST_GRAPH, SEED, doc

pytestmark = pytest.mark.integration

INGEST_COMMITS = """
mutation($input: IngestGitCommitsInput!) {
  ingestGitCommits(input: $input) {
    __typename
    ... on IngestGitCommitsSuccess { commits { hash status edges rejected { reason } } }
    ... on ValidationError { field message }
  }
}
"""


async def test_ingest_graph_stores_valid_items_and_rejects_the_rest(
    api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    await api(INGEST, input=doc(SEED))  # makes user:john known in the graph
    payload = {
        "sourceUrn": "profile:alice",
        "scope": {"clientId": "acme"},
        "pieces": [
            {
                "ref": "p1",
                "content": "Alice prefers concise answers.",
                "knowledgeType": "PREFERENCE",
                "infoType": "user_profile",
            },
            {"ref": "p2", "content": "Alice mentors John."},
        ],
        "nodes": [
            {"key": "user:alice", "properties": {"name": "Alice", "team": "auth"}},
            {"key": "not a key"},
        ],
        "edges": [
            {"from": "user:alice", "edgeType": "MENTORS", "to": "user:john", "evidence": ["p2"]},
            {"from": "user:alice", "edgeType": "KNOWS", "to": "user:ghost", "evidence": ["p2"]},
            {"from": "user:alice", "edgeType": "LIKES", "to": "user:john", "evidence": ["p9"]},
            {"from": "user:alice", "edgeType": "LIKES", "to": "user:john", "evidence": []},
        ],
    }
    result = (await api(INGEST_GRAPH, input=payload))["ingestGraph"]
    assert result["__typename"] == "IngestGraphSuccess"
    assert result["status"] == "INDEXED"
    # The edge citing no piece is the source's assertion (ASSERTED evidence).
    assert result["edges"] == [
        {"from": "user:alice", "edgeType": "mentors", "to": "user:john"},
        {"from": "user:alice", "edgeType": "likes", "to": "user:john"},
    ]
    assert [(r["item"], r["index"]) for r in result["rejected"]] == [
        ("EDGE", 1),
        ("EDGE", 2),
        ("NODE", 1),
    ]
    reasons = {r["index"]: r["reason"] for r in result["rejected"] if r["item"] == "EDGE"}
    assert "user:ghost" in reasons[1]
    assert "p9" in reasons[2]
    graph = migrated_settings.graph_name
    p2_chunk = result["chunks"][1]["id"]
    assert ("acme", "user:alice", "mentors", "user:john", (p2_chunk,)) in await graph_edges(
        pool, graph
    )
    props = await pool.fetchval(
        f"SELECT p FROM cypher('{graph}', $$ MATCH (v {{key: 'user:alice'}}) "
        "RETURN v.team $$) AS (p agtype)"
    )
    assert str(props) == '"auth"'
    piece = await pool.fetchrow(
        "SELECT knowledge_type, info_type FROM chunks WHERE id = $1", result["chunks"][0]["id"]
    )
    assert piece is not None and tuple(piece) == ("PREFERENCE", "user_profile")
    refs = await pool.fetchval("SELECT graph_refs FROM chunks WHERE id = $1", p2_chunk)
    assert refs == ["user:alice", "user:john"]
    again = (await api(INGEST_GRAPH, input=payload))["ingestGraph"]
    assert again["status"] == "SKIPPED_DUPLICATE"


async def test_git_commits_become_a_graph_with_diffs_as_evidence(
    api: Api, pool: asyncpg.Pool, migrated_settings: Settings
) -> None:
    commits = [
        {
            "hash": "a" * 40,
            "message": "Fix login flow",
            "author": "john@example.com",
            "date": "2026-11-20T10:00:00+00:00",
            "branch": "main",
            "parents": ["b" * 40],
            "files": [
                {"path": "src/UserService.kt", "changeType": "M"},
                {"path": "src/Login.kt", "changeType": "A"},
                {"path": "src/Old.kt", "changeType": "D"},
                {"path": "src/New.kt", "changeType": "R", "oldPath": "src/Legacy.kt"},
            ],
            "diff": "--- a/src/UserService.kt\n+++ b/src/UserService.kt\n@@ -1 +1 @@\n-x\n+y\n",
        }
    ]
    result = (
        await api(
            INGEST_COMMITS,
            input={"repository": "kenning", "scope": {"clientId": "acme"}, "commits": commits},
        )
    )["ingestGitCommits"]
    assert result["commits"] == [
        {"hash": "a" * 40, "status": "INDEXED", "edges": 7, "rejected": []}
    ]
    edges = await graph_edges(pool, migrated_settings.graph_name)
    commit = f"commit:{'a' * 40}"
    triples = {(e[1], e[2], e[3]) for e in edges}
    assert triples == {
        ("branch:kenning/main", "has_commit", commit),
        (commit, "parent", f"commit:{'b' * 40}"),
        (commit, "modifies", "file:src/userservice.kt"),
        (commit, "creates", "file:src/login.kt"),
        (commit, "deletes", "file:src/old.kt"),
        (commit, "renames", "file:src/new.kt"),
        ("file:src/new.kt", "renamed_from", "file:src/legacy.kt"),
    }
    evidence = {e[4] for e in edges}
    assert len(evidence) == 1
    [chunk_id] = next(iter(evidence))
    text = await pool.fetchval("SELECT content FROM chunks WHERE id = $1", chunk_id)
    assert "+++ b/src/UserService.kt" in text and "Fix login flow" in text
    assert (("acme", commit)) in await graph_vertices(pool, migrated_settings.graph_name)


async def test_bad_commit_is_a_validation_error(api: Api) -> None:
    result = (
        await api(
            INGEST_COMMITS,
            input={"repository": "kenning", "scope": {"clientId": "acme"}, "commits": [
                {"hash": "not-a-hash", "message": "m", "author": "a",
                 "date": "2026-11-20T10:00:00+00:00"}]},
        )
    )["ingestGitCommits"]  # fmt: skip
    assert result["__typename"] == "ValidationError"
    assert result["field"] == "hash"


async def test_ingestion_logs_stable_event_names(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="kenning")
    await api(INGEST, input=doc(SEED))
    await api(INGEST, input=doc(SEED))
    await api(INGEST, input=doc(SEED + "\napi_key = 'A1b2C3d4E5f6G7h8I9j0K1l2'"))
    await api(
        'mutation { purgeSource(scope: {clientId: "acme"}, sourceUrn: "jira:TASK-123") '
        "{ __typename } }"
    )
    events = [r.getMessage() for r in caplog.records if r.name.startswith("kenning.ingestion")]
    assert events == [
        "ingestion.indexed",
        "ingestion.skipped.duplicate",
        "ingestion.rejected",
        "ingestion.purged",
    ]
    indexed = next(r for r in caplog.records if r.getMessage() == "ingestion.indexed")
    assert indexed.__dict__["chunks"] == 1 and "duration_ms" in indexed.__dict__
    purged = next(r for r in caplog.records if r.getMessage() == "ingestion.purged")
    assert purged.__dict__["chunks"] == 1
    # And one access-log line per GraphQL operation, with how each ended.
    access = [r.__dict__ for r in caplog.records if r.name == "kenning.access"]
    assert [(a["type"], a["outcome"]) for a in access] == [("mutation", "ok")] * 4
    assert all(a["duration_ms"] >= 0 for a in access)

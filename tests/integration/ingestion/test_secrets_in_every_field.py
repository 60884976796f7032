"""Every text field a write path stores is checked for credentials, not only content.

A credential in an identifier (a URN, a key, a tag) is refused whatever the secret policy:
redacting it would store another identity. The refusal names the field, stores nothing and
leaves the credential out of every log record.
"""

from __future__ import annotations

import logging
from typing import Any

import asyncpg
import pytest

from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

CRED = "ghp_" + "A1b2C3d4E5" * 3 + "F6g7H8"  # a GitHub token's shape: 36 characters
ERRORS = """
    ... on ValidationError { code field message }
    ... on SensitiveContentError { code field message findings { kind line } }
    ... on ScopeError { code message }"""
INGEST = f"""mutation($input: IngestInput!) {{ ingest(input: $input) {{
    __typename ... on IngestSuccess {{ status }} {ERRORS} }} }}"""
REQUEST = f"""mutation($input: IngestInput!, $identity: IngestionIdentityInput!) {{
  requestIngestion(input: $input, identity: $identity) {{
    __typename ... on IngestionHandle {{ jobId }} {ERRORS} }} }}"""
GRAPH = f"""mutation($input: IngestGraphInput!) {{ ingestGraph(input: $input) {{
    __typename ... on IngestGraphSuccess {{ status }} {ERRORS} }} }}"""
COMMITS = f"""mutation($input: IngestGitCommitsInput!) {{ ingestGitCommits(input: $input) {{
    __typename ... on IngestGitCommitsSuccess {{ commits {{ status }} }} {ERRORS} }} }}"""


def document(**changes: Any) -> dict[str, Any]:
    return {"sourceUrn": "doc:1", "kind": "note", "content": "Alice owns service:billing.",
            "scope": {"clientId": "acme"}, **changes}  # fmt: skip


def graph(**changes: Any) -> dict[str, Any]:
    return {
        "sourceUrn": "profile:alice",
        "scope": {"clientId": "acme"},
        "pieces": [{"ref": "p1", "content": "Alice mentors Bob.", "tags": ["people"]}],
        "nodes": [{"key": "user:alice", "type": "user", "properties": {"team": "auth"}},
                  {"key": "user:bob"}],
        "edges": [{"from": "user:alice", "edgeType": "mentors", "to": "user:bob",
                   "evidence": ["p1"]}],
        **changes,
    }  # fmt: skip


def commits(**changes: Any) -> dict[str, Any]:
    commit = {"hash": "a" * 40, "message": "Fix the retry loop", "author": "alice",
              "date": "2026-01-02T03:04:05Z", "branch": "main", "diff": "+retry = 3",
              "files": [{"path": "src/retry.py", "changeType": "M"}]}  # fmt: skip
    return {"repository": "acme/api", "scope": {"clientId": "acme"},
            "commits": [{**commit, **changes.pop("commit", {})}], **changes}  # fmt: skip


INGEST_CASES = [
    ({"sourceUrn": f"https://bot:{CRED}@github.com/acme/api"}, "sourceUrn"),
    ({"tags": ["ops", f"deploy {CRED}"]}, "tags[1]"),
    ({"mainNodeKey": f"user:{CRED}"}, "mainNodeKey"),
    # In an identifier a token is its prefix and length, whatever characters follow it.
    ({"mainNodeKey": f"thing:{CRED}x"}, "mainNodeKey"),
    ({"sourceUrn": f"doc:{CRED}_v2"}, "sourceUrn"),
    ({"relationships": [f"user:a|owns|repo:{CRED}9"]}, "relationships[0]"),
    ({"kind": CRED}, "kind"),
    ({"infoType": CRED}, "infoType"),
    ({"sourceKind": CRED}, "sourceKind"),
    ({"externalId": CRED}, "externalId"),
    ({"revision": CRED}, "revision"),
    ({"connectionId": CRED}, "connectionId"),
    ({"relationships": ["user:a|owns|service:b", f"user:a|owns|repo:{CRED}"]}, "relationships[1]"),
    ({"metadata": {"deploy": {"note": f"use {CRED}"}}}, "metadata.deploy.note"),
    ({"metadata": {CRED: "x"}}, "metadata"),
    ({"content": f"push with {CRED}"}, "content"),
]


async def _nothing_stored(pool: asyncpg.Pool) -> None:
    counts = await pool.fetchrow(
        "SELECT (SELECT count(*) FROM chunks) AS chunks, (SELECT count(*) FROM sources) AS "
        "sources, (SELECT count(*) FROM ingestion_jobs) AS jobs"
    )
    assert counts is not None and dict(counts) == {"chunks": 0, "sources": 0, "jobs": 0}


def _refused(result: dict[str, Any], field: str) -> None:
    assert result["__typename"] == "SensitiveContentError", result
    assert (result["code"], result["field"]) == ("SENSITIVE_CONTENT", field)
    assert result["message"].startswith(field.split("[")[0].split(".")[0])
    assert CRED not in str(result)


def _not_logged(caplog: pytest.LogCaptureFixture) -> None:
    for record in caplog.records:
        assert CRED not in record.getMessage() and CRED not in str(record.__dict__), record


@pytest.fixture
async def no_jobs(pool: asyncpg.Pool) -> None:
    await pool.execute("TRUNCATE ingestion_jobs")


@pytest.mark.parametrize(("changes", "field"), INGEST_CASES)
async def test_ingest_refuses_a_credential_in_any_field(
    api: Api, pool: asyncpg.Pool, no_jobs: None, caplog: pytest.LogCaptureFixture,
    changes: dict[str, Any], field: str,
) -> None:  # fmt: skip
    with caplog.at_level(logging.DEBUG):
        result = (await api(INGEST, input=document(**changes)))["ingest"]
    _refused(result, field)
    await _nothing_stored(pool)
    _not_logged(caplog)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        *INGEST_CASES,
        ({"identity": {"contentVersion": CRED}}, "identity.contentVersion"),
        ({"identity": {"sourceId": f"https://x:{CRED}@h/"}}, "identity.sourceId"),
        ({"identity": {"sourceKind": CRED}}, "identity.sourceKind"),
    ],
)
async def test_request_ingestion_refuses_a_credential_in_any_field_before_queueing(
    api: Api, pool: asyncpg.Pool, no_jobs: None, caplog: pytest.LogCaptureFixture,
    changes: dict[str, Any], field: str,
) -> None:  # fmt: skip
    wanted = {"sourceKind": "test", "sourceId": "doc:1", "contentVersion": "v1"}
    wanted.update(changes.pop("identity", {}))
    with caplog.at_level(logging.DEBUG):
        data = await api(REQUEST, input=document(**changes), identity=wanted)
    _refused(data["requestIngestion"], field)
    await _nothing_stored(pool)
    _not_logged(caplog)


async def test_identifiers_are_refused_even_when_the_policy_redacts(
    api: Api, pool: asyncpg.Pool, no_jobs: None
) -> None:
    urn = f"https://bot:{CRED}@github.com/acme/api"
    refused = await api(INGEST, input=document(sourceUrn=urn, secretPolicy="REDACT"))
    _refused(refused["ingest"], "sourceUrn")
    await _nothing_stored(pool)
    redacted = await api(INGEST, input=document(content=f"use {CRED}", secretPolicy="REDACT"))
    assert redacted["ingest"]["status"] == "INDEXED"
    assert CRED not in str(await pool.fetch("SELECT content FROM chunks"))


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"sourceUrn": f"https://bot:{CRED}@github.com/acme/api"}, "sourceUrn"),
        ({"kind": CRED}, "kind"),
        ({"connectionId": CRED}, "connectionId"),
        ({"sourceKind": CRED}, "sourceKind"),
        ({"pieces": [{"ref": CRED, "content": "Alice mentors Bob."}]}, "pieces[0].ref"),
        ({"pieces": [{"ref": "p1", "content": "x", "tags": [CRED]}]}, "pieces[0].tags[0]"),
        ({"pieces": [{"ref": "p1", "content": "x", "infoType": CRED}]}, "pieces[0].infoType"),
        ({"pieces": [{"ref": "p1", "content": f"token {CRED}"}]}, "pieces[0].content"),
        ({"nodes": [{"key": f"user:{CRED}"}]}, "nodes[0].key"),
        ({"nodes": [{"key": "user:a", "type": CRED}]}, "nodes[0].type"),
        ({"nodes": [{"key": "user:a", "properties": {"t": CRED}}]}, "nodes[0].properties.t"),
        (
            {
                "edges": [
                    {
                        "from": "user:alice",
                        "edgeType": "mentors",
                        "to": f"user:{CRED}",
                        "evidence": ["p1"],
                    }
                ]
            },
            "edges[0].to",
        ),
        (
            {
                "edges": [
                    {
                        "from": "user:alice",
                        "edgeType": "mentors",
                        "to": "user:bob",
                        "evidence": [CRED],
                    }
                ]
            },
            "edges[0].evidence[0]",
        ),
    ],
)
async def test_ingest_graph_refuses_a_credential_in_any_field(
    api: Api, pool: asyncpg.Pool, no_jobs: None, caplog: pytest.LogCaptureFixture,
    changes: dict[str, Any], field: str,
) -> None:  # fmt: skip
    with caplog.at_level(logging.DEBUG):
        result = (await api(GRAPH, input=graph(**changes)))["ingestGraph"]
    _refused(result, field)
    await _nothing_stored(pool)
    _not_logged(caplog)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"repository": f"https://bot:{CRED}@github.com/acme/api"}, "repository"),
        ({"connectionId": CRED}, "connectionId"),
        ({"commit": {"message": f"rotate {CRED}"}}, "commits[0].message"),
        ({"commit": {"author": CRED}}, "commits[0].author"),
        ({"commit": {"branch": CRED}}, "commits[0].branch"),
        ({"commit": {"diff": f"+token = '{CRED}'"}}, "commits[0].diff"),
        (
            {"commit": {"files": [{"path": f"keys/{CRED}.txt", "changeType": "A"}]}},
            "commits[0].files[0].path",
        ),
        (
            {"commit": {"files": [{"path": "a.txt", "changeType": "R", "oldPath": CRED}]}},
            "commits[0].files[0].oldPath",
        ),
    ],
)
async def test_ingest_git_commits_refuses_a_credential_in_any_field(
    api: Api, pool: asyncpg.Pool, no_jobs: None, caplog: pytest.LogCaptureFixture,
    changes: dict[str, Any], field: str,
) -> None:  # fmt: skip
    with caplog.at_level(logging.DEBUG):
        result = (await api(COMMITS, input=commits(**changes)))["ingestGitCommits"]
    _refused(result, field)
    await _nothing_stored(pool)
    _not_logged(caplog)


async def test_clean_inputs_of_every_path_still_go_through(
    api: Api, pool: asyncpg.Pool, no_jobs: None
) -> None:
    # The near misses of the fields above: names, ids and prose that are no credentials.
    assert (await api(INGEST, input=document(tags=["password-reset", "token-ring"],
                                             metadata={"password_hint": "see the wiki"})))[
        "ingest"]["status"] == "INDEXED"  # fmt: skip
    assert (await api(GRAPH, input=graph()))["ingestGraph"]["status"] == "INDEXED"
    assert (await api(COMMITS, input=commits()))["ingestGitCommits"]["commits"][0][
        "status"] == "INDEXED"  # fmt: skip

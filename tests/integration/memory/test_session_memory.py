"""Session memory on the real stack: append and read at once, the cap under racing appends,
expiry and pruning, the TTL setting, and promotion into the knowledge base."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import asyncpg
import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.memory.session import MAX_ENTRIES
from kenning.domain.queue.jobs import JobStatus, Lane
from kenning.domain.queue.runner import run_job
from kenning.runtime import Runtime
from kenning.settings import Settings
from tests.support.graphql_api import Api
from tests.support.memory_session import APPEND, READ, entry_vars

pytestmark = pytest.mark.integration

WEB = Principal(key_id="acme-web-agent", scope=Scope("acme", "web"), role=Role.AGENT)


@pytest.fixture
async def web(runtime: Runtime, pool: asyncpg.Pool) -> AsyncIterator[Api]:
    """An agent of project web of client acme, over an empty session table."""
    await pool.execute("TRUNCATE session_entries")
    yield Api(runtime, WEB)


async def appended(api: Api, summary: str, **extra: object) -> dict[str, Any]:
    result = (await api(APPEND, **entry_vars(summary, **extra)))["appendSessionEntry"]
    assert result["__typename"] == "AppendSessionEntrySuccess", result
    entry = result["entry"]
    assert isinstance(entry, dict)
    return entry


async def test_an_entry_is_visible_at_once_newest_first_with_every_field(web: Api) -> None:
    await appended(web, "asked about billing")
    last = await appended(
        web,
        "chose blue-green deploys",
        source="ORCHESTRATOR_DECISION",
        details={"options": ["canary", "blue-green"], "chosen": 1},
        taskId="T-42",
    )
    read = (await web(READ))["sessionMemory"]
    assert [e["summary"] for e in read] == ["chose blue-green deploys", "asked about billing"]
    assert read[0] == last
    assert last["source"] == "ORCHESTRATOR_DECISION" and last["taskId"] == "T-42"
    assert last["details"] == {"options": ["canary", "blue-green"], "chosen": 1}
    assert last["createdBy"] == "acme-web-agent" and last["promoted"] is False
    lived = datetime.fromisoformat(last["expiresAt"]) - datetime.fromisoformat(last["createdAt"])
    assert lived == timedelta(days=7)
    assert [e["summary"] for e in (await web(READ, limit=1))["sessionMemory"]] == [
        "chose blue-green deploys"
    ]


async def test_invalid_input_is_a_union_member_naming_the_field(
    web: Api, pool: asyncpg.Pool
) -> None:
    long = (await web(APPEND, **entry_vars("x" * 201)))["appendSessionEntry"]
    assert long["__typename"] == "ValidationError" and long["field"] == "summary"
    listed = (await web(APPEND, **entry_vars("ok", details=[1])))["appendSessionEntry"]
    assert listed["__typename"] == "ValidationError" and listed["field"] == "details"
    secret = (await web(APPEND, **entry_vars("key AKIAIOSFODNN7EXAMPLF")))["appendSessionEntry"]
    assert secret == {"__typename": "SensitiveContentError", "code": "SENSITIVE_CONTENT",
                      "field": "summary"}  # fmt: skip
    assert await pool.fetchval("SELECT count(*) FROM session_entries") == 0
    bad_limit = await web.execute(READ, limit=51)
    assert bad_limit.errors is not None and "limit" in bad_limit.errors[0].message


async def test_at_most_50_stay_and_the_oldest_go(web: Api) -> None:
    for n in range(MAX_ENTRIES + 3):
        await appended(web, f"entry {n}")
    read = (await web(READ, limit=MAX_ENTRIES))["sessionMemory"]
    assert [e["summary"] for e in read] == [f"entry {n}" for n in range(52, 2, -1)]


async def test_racing_appends_never_leave_more_than_50(web: Api, pool: asyncpg.Pool) -> None:
    other = web.as_(Principal("acme-api", Scope("acme", "api"), Role.AGENT))
    await appended(other, "another project's entry")
    # Without the lock, about one round in two left 51 or 52 here: three rounds catch it.
    for round_ in range(3):
        await asyncio.gather(*(appended(web, f"racing {round_}.{n}") for n in range(120)))
        count = await pool.fetchval(
            "SELECT count(*) FROM session_entries WHERE client_id = 'acme' AND project_id = 'web'"
        )
        assert count == MAX_ENTRIES
    kept = await pool.fetch(
        """SELECT summary FROM session_entries WHERE project_id = 'web'
           ORDER BY created_at DESC, id DESC"""
    )
    read = (await web(READ, limit=MAX_ENTRIES))["sessionMemory"]
    assert [e["summary"] for e in read] == [r["summary"] for r in kept]
    # Another project's session is a session of its own: not trimmed by these.
    assert [e["summary"] for e in (await other(READ))["sessionMemory"]] == [
        "another project's entry"
    ]


async def test_expired_entries_are_never_returned_and_are_pruned(
    web: Api, pool: asyncpg.Pool
) -> None:
    old = await appended(web, "last week")
    elsewhere = web.as_(Principal("beta-agent", Scope("beta"), Role.AGENT))
    await appended(elsewhere, "beta's old entry")
    await pool.execute("UPDATE session_entries SET expires_at = now() - interval '1 second'")
    assert (await web(READ))["sessionMemory"] == []
    await appended(web, "today")
    left = await pool.fetch("SELECT id, summary FROM session_entries")
    assert [r["summary"] for r in left] == ["today"] and old["id"] not in {r["id"] for r in left}


async def test_the_ttl_comes_from_the_settings(
    pool: asyncpg.Pool, migrated_settings: Settings, web: Api
) -> None:
    settings = migrated_settings.model_copy(update={"session_ttl_days": 2})
    short = Runtime(settings=settings, pool=pool, redis=web.runtime.redis,
                    embedder=web.runtime.embedder)  # fmt: skip
    entry = await appended(Api(short, WEB), "kept two days")
    lived = datetime.fromisoformat(entry["expiresAt"]) - datetime.fromisoformat(entry["createdAt"])
    assert lived == timedelta(days=2)
    assert Settings(_env_file=None).session_ttl_days == 7


async def test_promote_also_ingests_the_entry_in_the_background_lane(
    web: Api, runtime: Runtime, pool: asyncpg.Pool
) -> None:
    result = (
        await web(
            APPEND,
            **entry_vars(
                "rolled back release 7.2",
                details={"cause": "p99 latency"},
                promote=True,
                taskId="T-7",
            ),
        )
    )["appendSessionEntry"]
    assert result["entry"]["promoted"] is True and result["promotion"]["status"] == "QUEUED"
    job = await pool.fetchrow(
        "SELECT lane, priority, client_id, project_id FROM ingestion_jobs WHERE id = $1",
        result["promotion"]["jobId"],
    )
    assert job is not None and job["lane"] == Lane.BULK.value and job["priority"] == 4
    assert (job["client_id"], job["project_id"]) == ("acme", "web")
    claimed = await runtime.queue.work.claim(Lane.BULK, "test/1", 60)
    assert claimed is not None and claimed.job.id == result["promotion"]["jobId"]
    assert await run_job(claimed, runtime.queue.work, runtime.job_deps()) is JobStatus.INDEXED
    chunk = await pool.fetchrow(
        "SELECT kind, content, client_id, project_id FROM chunks WHERE source_urn = $1",
        f"session-entry:{result['entry']['id']}",
    )
    assert chunk is not None and chunk["kind"] == "session_entry"
    assert "rolled back release 7.2" in chunk["content"] and "p99 latency" in chunk["content"]
    assert (chunk["client_id"], chunk["project_id"]) == ("acme", "web")
    plain = (await web(APPEND, **entry_vars("not promoted")))["appendSessionEntry"]
    assert plain["promotion"] is None

"""Hard rules never cross clients: over GraphQL, and in the database itself, where the
rules role sees no row without its client named, whatever the SQL asks."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.memory.rules import RuleDraft, RuleType
from kenning.runtime import Runtime
from kenning.settings import Settings
from kenning.storage.db.pool import create_pool
from kenning.storage.db.rule_table import CLIENT_SETTING, RULES_ROLE
from kenning.storage.memory.rules import PgRuleStore
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

STORE = """mutation S($key: String!, $content: String!, $projectId: String) {
  storeRule(ruleKey: $key, ruleType: SECURITY, content: $content, projectId: $projectId) {
    __typename } }"""
DELETE = """mutation D($key: String!) { deleteRule(ruleKey: $key) { __typename } }"""
RULES = """query R($projectId: String) { rules(projectId: $projectId) {
  ruleKey content clientId version } }"""
HISTORY = """query H($key: String!, $projectId: String) {
  ruleHistory(ruleKey: $key, projectId: $projectId) { nodes { content clientId } } }"""

ACME = Principal(key_id="acme-agent", scope=Scope("acme"), role=Role.AGENT)
# Client B, with a client-wide key of each role and a project key.
BETA = Principal(key_id="beta-agent", scope=Scope("beta"), role=Role.AGENT)
BETA_ADMIN = Principal(key_id="beta-admin", scope=Scope("beta"), role=Role.ADMIN)
BETA_UI = Principal(key_id="beta-ui", scope=Scope("beta"), role=Role.UI)
BETA_WEB = Principal(key_id="beta-web", scope=Scope("beta", "web"), role=Role.AGENT)


@pytest.fixture
async def acme(runtime: Runtime, pool: asyncpg.Pool) -> AsyncIterator[Api]:
    """Client acme with a client-wide rule and a rule of its project web."""
    await pool.execute("TRUNCATE hard_rules")
    api = Api(runtime, ACME)
    for variables in (
        {"key": "route", "content": "acme client route"},
        {"key": "route", "content": "acme web route", "projectId": "web"},
    ):
        assert (await api(STORE, **variables))["storeRule"]["__typename"] == "StoreRuleSuccess"
    yield api


@pytest.mark.parametrize("beta", [BETA, BETA_ADMIN, BETA_UI, BETA_WEB], ids=lambda p: p.key_id)
async def test_another_client_sees_none_of_its_rules(acme: Api, beta: Principal) -> None:
    other = acme.as_(beta)
    assert (await other(RULES))["rules"] == []
    assert (await other(HISTORY, key="route"))["ruleHistory"]["nodes"] == []
    if beta.scope.project_id == "":
        assert (await other(RULES, projectId="web"))["rules"] == []
        assert (await other(HISTORY, key="route", projectId="web"))["ruleHistory"]["nodes"] == []
    named = await other.execute(RULES.replace("rules(", 'rules(scope: {clientId: "acme"}, '))
    assert named.errors is not None and named.data is None


async def test_another_client_cannot_delete_them_and_its_own_key_is_its_own(acme: Api) -> None:
    beta = acme.as_(BETA)
    assert (await beta(DELETE, key="route"))["deleteRule"]["__typename"] == "NotFoundError"
    await beta(STORE, key="route", content="beta route")
    assert (await beta(RULES))["rules"] == [
        {"ruleKey": "route", "content": "beta route", "clientId": "beta", "version": 1}
    ]
    mine = (await acme(RULES))["rules"]
    assert mine == [
        {"ruleKey": "route", "content": "acme client route", "clientId": "acme", "version": 1}
    ]


async def _as_rules_role(pool: asyncpg.Pool, client: str | None, sql: str) -> int:
    """``sql``'s count under the rules role, with ``client`` named (None: not named)."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(f"SET LOCAL ROLE {RULES_ROLE}")
        if client is not None:
            await conn.execute("SELECT set_config($1, $2, true)", CLIENT_SETTING, client)
        return int(await conn.fetchval(sql))


async def test_the_database_shows_the_rules_role_only_the_named_client_s_rows(
    acme: Api, pool: asyncpg.Pool
) -> None:
    await acme.as_(BETA)(STORE, key="route", content="beta route")
    everything = "SELECT count(*) FROM hard_rules"  # no client filter at all
    assert await pool.fetchval(everything) == 3  # the superuser bypasses the policy
    assert await _as_rules_role(pool, None, everything) == 0
    assert await _as_rules_role(pool, "", everything) == 0
    assert await _as_rules_role(pool, "gamma", everything) == 0
    assert await _as_rules_role(pool, "beta", everything) == 1
    assert await _as_rules_role(pool, "acme", everything) == 2
    assert await _as_rules_role(pool, "beta", "SELECT count(*) FROM hard_rules "
                                "WHERE client_id = 'acme'") == 0  # fmt: skip
    changed = "WITH c AS (UPDATE hard_rules SET content = 'x' RETURNING 1) SELECT count(*) FROM c"
    assert await _as_rules_role(pool, "beta", changed) == 1
    assert await pool.fetchval("SELECT count(*) FROM hard_rules WHERE content = 'x'") == 1


async def test_the_rules_role_cannot_write_a_row_for_another_client(
    acme: Api, pool: asyncpg.Pool
) -> None:
    with pytest.raises(asyncpg.InsufficientPrivilegeError):
        await _as_rules_role(
            pool,
            "beta",
            """WITH i AS (INSERT INTO hard_rules (id, client_id, rule_key, version, rule_type,
                   content, description, created_by)
               VALUES ('x', 'acme', 'forged', 1, 'CUSTOM', 'c', '', 'k') RETURNING 1)
               SELECT count(*) FROM i""",
        )
    assert await pool.fetchval("SELECT count(*) FROM hard_rules WHERE rule_key = 'forged'") == 0


async def test_the_store_leaves_its_pooled_connection_as_it_found_it(
    runtime: Runtime, migrated_settings: Settings
) -> None:
    one = migrated_settings.model_copy(update={"db_pool_min": 1, "db_pool_max": 1})
    pool = await create_pool(one)  # one connection: the store's is the one checked after
    try:
        store = PgRuleStore(pool)
        await pool.execute("TRUNCATE hard_rules")
        draft = RuleDraft("acme", "", "route", RuleType.ROUTING, "to ops", "", "k")
        await store.store(draft)
        assert [r.content for r in await store.active("acme", [""])] == ["to ops"]
        async with pool.acquire() as conn:
            assert await conn.fetchval("SELECT current_user") == await conn.fetchval(
                "SELECT session_user"
            )
            assert not await conn.fetchval("SELECT current_setting($1, true)", CLIENT_SETTING)
    finally:
        await pool.close()


async def test_the_store_reads_under_the_rules_role_so_unfiltered_sql_sees_one_client(
    acme: Api, runtime: Runtime, pool: asyncpg.Pool
) -> None:
    """The store's own transactions run as the rules role with the client named: a statement
    that forgot its client filter there still reads only that client's rows."""
    await Api(runtime, BETA)(STORE, key="route", content="beta client route")
    store = PgRuleStore(pool)
    async with store._as_client("beta") as conn:
        assert await conn.fetchval("SELECT current_user") == RULES_ROLE
        clients = {r["client_id"] for r in await conn.fetch("SELECT client_id FROM hard_rules")}
    assert clients == {"beta"}
    assert await pool.fetchval("SELECT count(DISTINCT client_id) FROM hard_rules") == 2


async def test_a_failed_statement_leaves_the_pooled_connection_as_it_found_it(
    migrated_settings: Settings,
) -> None:
    one = migrated_settings.model_copy(update={"db_pool_min": 1, "db_pool_max": 1})
    pool = await create_pool(one)
    try:
        store = PgRuleStore(pool)
        with pytest.raises(asyncpg.PostgresError):
            async with store._as_client("acme") as conn:
                await conn.execute("SELECT 1 / 0")
        async with pool.acquire() as conn:
            assert await conn.fetchval("SELECT current_user") == await conn.fetchval(
                "SELECT session_user"
            )
            assert not await conn.fetchval("SELECT current_setting($1, true)", CLIENT_SETTING)
    finally:
        await pool.close()

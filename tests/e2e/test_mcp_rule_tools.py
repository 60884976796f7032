"""The MCP rule tools over real HTTP: an agent stores a hard rule (get_rules returns it,
a second store makes version 2) and deletes it; a read-only key or a bad rule key is
refused naming the field; another client's agent neither sees nor deletes it."""

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
class RuleKeys:
    agent_a: str
    reader_a: str
    agent_b: str


@pytest.fixture(scope="module")
def keys(migrated_settings: Settings) -> RuleKeys:
    a, b = f"mcp-rule-a-{uuid.uuid4().hex[:6]}", f"mcp-rule-b-{uuid.uuid4().hex[:6]}"

    def key(scope: Scope, role: Role) -> str:
        return asyncio.run(create_key(migrated_settings, scope, role))

    return RuleKeys(
        key(Scope(a, "web"), Role.AGENT), key(Scope(a), Role.UI), key(Scope(b, "web"), Role.AGENT)
    )


async def test_an_agent_stores_a_rule_version_and_deletes_it(
    server: Server, keys: RuleKeys
) -> None:
    async with mcp_session(server.url, keys.agent_a) as session:
        first = await call(
            session,
            "store_rule",
            rule_key="no-friday",
            rule_type="PROCESSING",
            content="No deploys on Friday.",
        )
        second = await call(
            session,
            "store_rule",
            rule_key="no-friday",
            rule_type="PROCESSING",
            content="No deploys on Friday or Saturday.",
            description="Weekend cover is thin.",
        )
        in_force = (await call(session, "get_rules"))["rules"]
        deleted = await call(session, "delete_rule", rule_key="no-friday")
        after = (await call(session, "get_rules"))["rules"]
    assert (first["rule"]["version"], second["rule"]["version"]) == (1, 2)
    assert second["rule"]["projectId"] == "web"
    assert [(r["ruleKey"], r["content"]) for r in in_force] == [
        ("no-friday", "No deploys on Friday or Saturday.")
    ]
    assert deleted["rule"]["deletedAt"] is not None
    assert after == []


async def test_a_read_only_key_or_a_bad_rule_key_is_refused(server: Server, keys: RuleKeys) -> None:
    async with mcp_session(server.url, keys.reader_a) as session:
        read_only = await session.call_tool(
            "store_rule", {"rule_key": "r", "rule_type": "CUSTOM", "content": "Be kind."}
        )
    async with mcp_session(server.url, keys.agent_a) as session:
        bad_key = await session.call_tool(
            "store_rule", {"rule_key": " padded ", "rule_type": "CUSTOM", "content": "Be kind."}
        )
        missing = await session.call_tool("delete_rule", {"rule_key": "never-stored"})
    assert refusal(read_only).startswith("OUT_OF_SCOPE")
    assert refusal(bad_key).startswith("INVALID") and refusal(bad_key).endswith("(field: ruleKey)")
    assert refusal(missing).startswith("NOT_FOUND")


async def test_another_client_neither_sees_nor_deletes_the_rule(
    server: Server, keys: RuleKeys
) -> None:
    async with mcp_session(server.url, keys.agent_a) as session:
        await call(
            session,
            "store_rule",
            rule_key="a-only",
            rule_type="SECURITY",
            content="Client A's rule.",
        )
    async with mcp_session(server.url, keys.agent_b) as other:
        rules = (await call(other, "get_rules"))["rules"]
        deleted = await other.call_tool("delete_rule", {"rule_key": "a-only"})
    assert rules == []
    assert refusal(deleted).startswith("NOT_FOUND")
    async with mcp_session(server.url, keys.agent_a) as session:
        kept = (await call(session, "get_rules"))["rules"]
    assert [r["ruleKey"] for r in kept] == ["a-only"]

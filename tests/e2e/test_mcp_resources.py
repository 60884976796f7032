"""The MCP resources over real HTTP: ``kenning://rules``, ``kenning://user-context`` and
``kenning://session`` list with their Markdown type and read what the key's scope holds, and
never another client's; through ``kenning mcp`` (stdio) the same list and the same text."""

from __future__ import annotations

import uuid

import pytest
from mcp.client import ClientSession
from mcp.types import TextResourceContents

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.e2e.test_mcp_stdio import stdio_session
from tests.support.mcp_session import call, mcp_session
from tests.support.server_process import Server, create_key, graphql

pytestmark = pytest.mark.e2e

URIS = ["kenning://rules", "kenning://user-context", "kenning://session"]
RULE = """mutation($c: String!) { storeRule(ruleKey: "deploys", ruleType: CUSTOM, content: $c) {
  __typename } }"""


async def _texts(session: ClientSession) -> dict[str, str]:
    texts = {}
    for uri in URIS:
        [content] = (await session.read_resource(uri)).contents
        assert isinstance(content, TextResourceContents), content
        assert content.mime_type == "text/markdown", content
        texts[uri] = content.text
    return texts


async def test_resources_hold_the_keys_memory_and_never_another_clients(
    server: Server, migrated_settings: Settings
) -> None:
    mine, other = (f"res-{side}-{uuid.uuid4().hex[:6]}" for side in "ab")
    key = await create_key(migrated_settings, Scope(mine, "web"), Role.AGENT)
    other_key = await create_key(migrated_settings, Scope(other, "web"), Role.AGENT)
    stored = graphql(server, key, RULE, c="Never deploy on Fridays.")
    assert stored["storeRule"]["__typename"] == "StoreRuleSuccess", stored
    async with mcp_session(server.url, key) as session:
        listed = (await session.list_resources()).resources
        assert [(str(r.uri), r.mime_type) for r in listed] == [(u, "text/markdown") for u in URIS]
        await call(session, "store_knowledge", subject="Editor", content="Uses helix",
                   category="PREFERENCE")  # fmt: skip
        await call(session, "append_session", source="CHAT", summary="Froze the deploys")
        texts = await _texts(session)
    assert "deploys (CUSTOM): Never deploy on Fridays." in texts["kenning://rules"]
    assert "Uses helix" in texts["kenning://user-context"]
    assert "Froze the deploys" in texts["kenning://session"]
    async with stdio_session(server.url, key) as proxied:
        assert [str(r.uri) for r in (await proxied.list_resources()).resources] == URIS
        assert await _texts(proxied) == texts
    async with mcp_session(server.url, other_key) as stranger:
        theirs = await _texts(stranger)
    for uri, text in theirs.items():
        for mine_only in ("Fridays", "helix", "Froze"):
            assert mine_only not in text, (uri, text)

"""Whose memory, on the real stack: user knowledge, session entries and procedures stored for
one user (userKey) reach that user's reads beside the shared ones and never another user's:
userContext, sessionMemory, procedures, search, knowledgeHistory, changes and the MCP tools."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.memory.user_knowledge import KnowledgeCategory
from kenning.mcp.auth import CALLER, Caller
from kenning.mcp.calls import ToolContext
from kenning.mcp.history_tools import forget_knowledge_tool, get_history_tool
from kenning.mcp.memory_tools import get_session_tool, store_knowledge_tool
from kenning.mcp.recall_tools import get_context_tool
from kenning.runtime import Runtime
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

ACME = Principal("acme-agent", Scope("acme"), Role.AGENT)
STORE = """mutation($s: String!, $c: String!, $u: String, $a: String) {
  storeKnowledge(subject: $s, content: $c, category: PREFERENCE, userKey: $u, agentId: $a) {
    __typename ... on Error { code field } } }"""
CONTEXT = """query($u: String) { userContext(userKey: $u) {
  markdown categories { items { subject content userKey agentId } } } }"""
APPEND = """mutation($s: String!, $u: String) {
  appendSessionEntry(source: CHAT, summary: $s, userKey: $u) {
    __typename ... on AppendSessionEntrySuccess { entry { id userKey } } } }"""
SESSION = "query($u: String) { sessionMemory(userKey: $u) { summary userKey } }"
DELETE_ENTRY = """mutation($id: ID!) { deleteSessionEntry(id: $id, reason: "typo") {
  __typename ... on Error { code field } } }"""
SEARCH = """query($u: String) {
  search(query: "uses editor vim emacs nano", mode: KEYWORD, userKey: $u) {
  ... on SearchSuccess { hits { chunk { content } } } } }"""
HISTORY = """query($u: String) { knowledgeHistory(category: PREFERENCE, subject: "Editor",
  userKey: $u) { nodes { content userKey } } }"""
CHANGES = "query($u: String) { changes(userKey: $u) { nodes { itemKind old new userKey } } }"
SAVE = """mutation($t: String!, $u: String) { saveProcedure(input: {triggerPattern: $t,
  description: "Deploy it.", steps: [{agent: "ops", action: "deploy"}], userKey: $u}) {
  __typename ... on Procedure { id userKey version } } }"""
FIND = """query($u: String) { procedures(triggerPattern: "deploy", userKey: $u) {
  procedure { userKey } } }"""


async def remember(api: Api) -> None:
    """Alice's and Bob's editor, a shared editor and a shared timezone, each stored twice
    (so each user's item has a history and a change)."""
    for user, editor in (("user:alice", "vim"), ("user:bob", "emacs"), (None, "nano")):
        for version in ("old", editor):
            done = await api(STORE, s="Editor", c=f"Uses {version}", u=user, a="planner")
            assert done["storeKnowledge"]["__typename"] == "StoreKnowledgeSuccess", done
    await api(STORE, s="Timezone", c="CET")


def contents(found: dict[str, Any]) -> set[str]:
    return {i["content"] for c in found["userContext"]["categories"] for i in c["items"]}


async def test_each_user_reads_their_own_knowledge_and_the_shared(api: Api) -> None:
    acme = api.as_(ACME)
    await remember(acme)
    assert contents(await acme(CONTEXT, u="user:alice")) == {"Uses vim", "CET"}
    assert contents(await acme(CONTEXT, u=" User:bob")) == {"Uses emacs", "CET"}
    assert contents(await acme(CONTEXT)) == {"Uses nano", "CET"}
    [alice] = [
        i
        for c in (await acme(CONTEXT, u="user:alice"))["userContext"]["categories"]
        for i in c["items"]
        if i["userKey"]
    ]
    assert alice == {
        "subject": "Editor",
        "content": "Uses vim",
        "userKey": "user:alice",
        "agentId": "planner",
    }
    for user, own, other in (("user:alice", "vim", "emacs"), ("user:bob", "emacs", "vim")):
        hits = str((await acme(SEARCH, u=user))["search"]["hits"])
        assert f"Uses {own}" in hits and f"Uses {other}" not in hits
        versions = (await acme(HISTORY, u=user))["knowledgeHistory"]["nodes"]
        assert [v["content"] for v in versions] == [f"Uses {own}", "Uses old"]
        changed = str((await acme(CHANGES, u=user))["changes"]["nodes"])
        assert f"'user:{user[5:]}'" in changed and f"Uses {other}" not in changed
    shared = str(await acme(SEARCH)) + str(await acme(CHANGES))
    assert "vim" not in shared and "emacs" not in shared and "nano" in shared


async def test_session_entries_and_procedures_are_the_users_and_the_shared(api: Api) -> None:
    acme = api.as_(ACME)
    ids = {}
    for user in ("user:alice", "user:bob", None):
        done = await acme(APPEND, s=f"note of {user}", u=user)
        ids[user] = done["appendSessionEntry"]["entry"]["id"]
        saved = (await acme(SAVE, t="deploy", u=user))["saveProcedure"]
        assert (saved["userKey"], saved["version"]) == (user, 1)  # one procedure per user
    alice = [e["summary"] for e in (await acme(SESSION, u="user:alice"))["sessionMemory"]]
    assert sorted(alice) == ["note of None", "note of user:alice"]
    assert [e["summary"] for e in (await acme(SESSION))["sessionMemory"]] == ["note of None"]
    found = (await acme(FIND, u="user:bob"))["procedures"]
    assert sorted(str(m["procedure"]["userKey"]) for m in found) == ["None", "user:bob"]
    assert (await acme(DELETE_ENTRY, id=ids["user:bob"]))["deleteSessionEntry"] == {
        "__typename": "DeleteSessionEntrySuccess"
    }
    bob = [e["summary"] for e in (await acme(SESSION, u="user:bob"))["sessionMemory"]]
    assert bob == ["note of None"]
    assert "note of user:bob" not in str(await acme(CHANGES, u="user:alice"))
    assert "note of user:bob" in str(await acme(CHANGES, u="user:bob"))
    again = (await acme(DELETE_ENTRY, id=ids["user:bob"]))["deleteSessionEntry"]
    assert (again["code"], again["field"]) == ("NOT_FOUND", "id")


def tool_context(runtime: Runtime) -> ToolContext:
    request = SimpleNamespace(scope={CALLER: Caller(runtime, ACME)})
    return cast(ToolContext, SimpleNamespace(request_context=SimpleNamespace(request=request)))


async def test_the_mcp_tools_keep_users_apart(runtime: Runtime, api: Api) -> None:
    ctx, pref = tool_context(runtime), KnowledgeCategory.PREFERENCE
    for user, editor in (("user:alice", "vim"), ("user:bob", "emacs")):
        for version in ("old", editor):
            await store_knowledge_tool(ctx, "Editor", f"Uses {version}", pref, user_key=user)
    bob = await get_history_tool(ctx, "PREFERENCE:editor", user_key="user:bob")
    assert [v["content"] for v in bob["versions"]] == ["Uses emacs", "Uses old"]
    assert bob["kind"] == "knowledge" and bob["versions"][0]["userKey"] == "user:bob"
    context = await get_context_tool(ctx, "which editor?", user_key="user:bob")
    assert "vim" not in context["text"]
    forgotten = await forget_knowledge_tool(ctx, pref, "Editor", user_key="user:alice")
    assert forgotten["forgotten"]["content"] == "Uses vim"
    assert (await get_history_tool(ctx, "PREFERENCE:editor", user_key="user:bob")) == bob
    assert (await get_session_tool(ctx, user_key="user:bob"))["entries"] == []
    with pytest.raises(Exception, match=r"INVALID.*key"):
        await get_history_tool(ctx, "COLOUR:editor")


async def test_get_context_shows_the_users_own_knowledge(runtime: Runtime, api: Api) -> None:
    ctx = tool_context(runtime)
    await store_knowledge_tool(
        ctx, "Editor", "Uses vim", KnowledgeCategory.PREFERENCE, user_key="user:alice"
    )
    context = await get_context_tool(ctx, "which editor?", user_key="user:alice")
    assert "Uses vim" in context["text"]


AGENT_CONTEXT = """query($u: String) { agentContext(query: "deploy the editor", userKey: $u) {
  ... on AgentContext { text } } }"""
SAVE_AS = """mutation($d: String!, $u: String) { saveProcedure(input: {triggerPattern:
  "deploy the editor", description: $d, steps: [{agent: "ops", action: "deploy"}],
  userKey: $u}) { __typename } }"""


async def test_agent_context_holds_the_users_memory_and_the_shared_never_another(
    api: Api,
) -> None:
    acme = api.as_(ACME)
    await remember(acme)
    for user in ("user:alice", "user:bob", None):
        await acme(APPEND, s=f"note of {user}", u=user)
        assert (await acme(SAVE_AS, d=f"Steps of {user}.", u=user))["saveProcedure"] == {
            "__typename": "Procedure"
        }
    for user, own, other in (("user:alice", "vim", "bob"), ("user:bob", "emacs", "alice")):
        text = (await acme(AGENT_CONTEXT, u=user))["agentContext"]["text"]
        for held in (f"Uses {own}", "CET", f"note of {user}", "note of None", f"Steps of {user}."):
            assert held in text, (held, text)
        for mine_not in (other, "Uses nano"):  # the shared editor yields to the user's own
            assert mine_not not in text, (mine_not, text)
    shared = (await acme(AGENT_CONTEXT))["agentContext"]["text"]
    assert "Uses nano" in shared and "note of None" in shared and "Steps of None." in shared
    assert [word for word in ("vim", "emacs", "alice", "bob") if word in shared] == []

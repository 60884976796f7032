"""User knowledge keeps its past on the real stack: storeKnowledge keeps every replaced
version, forgetKnowledge removes the item from every read at once but not from the history,
and each replacement and forget is in the change log, read only by who may read the item."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

STORE = """mutation($s: String!, $c: String!, $r: String, $u: String) {
  storeKnowledge(subject: $s, content: $c, category: PREFERENCE, reason: $r, userKey: $u) {
    __typename ... on StoreKnowledgeSuccess { status userKey } ... on Error { code field } } }"""
FORGET = """mutation($s: String!, $r: String, $u: String) {
  forgetKnowledge(category: PREFERENCE, subject: $s, reason: $r, userKey: $u) {
    __typename ... on ForgetKnowledgeSuccess { version { version content deletedAt } }
    ... on Error { code field } } }"""
HISTORY = """query($s: String!, $first: Int! = 20, $after: String, $u: String) {
  knowledgeHistory(category: PREFERENCE, subject: $s, first: $first, after: $after, userKey: $u) {
    nodes { version subject content createdBy supersededAt deletedAt userKey
            scope { clientId projectId } }
    endCursor hasNextPage } }"""
CHANGES = """query($key: String, $id: ID, $u: String) {
  changes(key: $key, itemId: $id, userKey: $u) {
    nodes { itemKind itemId itemKey action old new reason changedBy userKey }
    hasNextPage } }"""
CONTEXT = "{ userContext { markdown } }"
SEARCH = """{ search(query: "editor neovim emacs", mode: KEYWORD) {
  ... on SearchSuccess { hits { kind chunk { content } } } } }"""
ACME = Principal("acme-agent", Scope("acme"), Role.AGENT)
BETA = Principal("beta-agent", Scope("beta"), Role.AGENT)


async def store(api: Api, subject: str, content: str, **more: Any) -> dict[str, Any]:
    found: dict[str, Any] = (await api(STORE, s=subject, c=content, **more))["storeKnowledge"]
    return found


async def history(api: Api, subject: str = "Editor", **more: Any) -> dict[str, Any]:
    found: dict[str, Any] = (await api(HISTORY, s=subject, **more))["knowledgeHistory"]
    return found


async def found_by_search(api: Api, text: str) -> bool:
    hits = (await api(SEARCH))["search"]["hits"]
    return any(text in hit["chunk"]["content"] for hit in hits)


async def test_a_replaced_version_stays_in_the_history_and_the_change_log(api: Api) -> None:
    acme = api.as_(ACME)
    await store(acme, "Editor", "Uses vim")
    assert (await store(acme, "Editor", "Uses vim"))["status"] == "SKIPPED_DUPLICATE"
    await store(acme, "EDITOR", "Uses Neovim", r="switched in March")
    found = await history(acme)
    versions = [(n["version"], n["content"], n["supersededAt"] is None) for n in found["nodes"]]
    assert versions == [(2, "Uses Neovim", True), (1, "Uses vim", False)]
    assert {n["createdBy"] for n in found["nodes"]} == {"acme-agent"}
    assert found["hasNextPage"] is False
    changes = (await acme(CHANGES, key="PREFERENCE:editor"))["changes"]["nodes"]
    assert len(changes) == 1
    [change] = changes
    assert change["itemKind"] == "KNOWLEDGE" and change["action"] == "UPDATE"
    assert change["old"]["content"] == "Uses vim" and change["new"]["content"] == "Uses Neovim"
    assert (change["reason"], change["changedBy"]) == ("switched in March", "acme-agent")
    by_id = (await acme(CHANGES, id=change["itemId"]))["changes"]["nodes"]
    assert by_id == changes


async def test_history_pages_newest_first(api: Api) -> None:
    acme = api.as_(ACME)
    for n in range(5):
        await store(acme, "Editor", f"version {n}")
    first = await history(acme, first=2)
    assert [n["version"] for n in first["nodes"]] == [5, 4] and first["hasNextPage"]
    rest = await history(acme, first=5, after=first["endCursor"])
    assert [n["version"] for n in rest["nodes"]] == [3, 2, 1] and not rest["hasNextPage"]


async def test_forget_removes_the_item_from_every_read_and_keeps_its_history(api: Api) -> None:
    acme = api.as_(ACME)
    await store(acme, "Editor", "Uses Neovim")
    await store(acme, "Shell", "Uses fish")
    assert "Neovim" in (await acme(CONTEXT))["userContext"]["markdown"]
    assert await found_by_search(acme, "Neovim")
    done = (await acme(FORGET, s="editor", r="the user asked"))["forgetKnowledge"]
    assert done["__typename"] == "ForgetKnowledgeSuccess"
    assert done["version"]["content"] == "Uses Neovim" and done["version"]["deletedAt"]
    markdown = (await acme(CONTEXT))["userContext"]["markdown"]
    assert "Neovim" not in markdown and "fish" in markdown
    assert not await found_by_search(acme, "Neovim")
    [kept] = (await history(acme))["nodes"]
    assert kept["content"] == "Uses Neovim" and kept["deletedAt"] is not None
    [change] = (await acme(CHANGES, key="PREFERENCE:editor"))["changes"]["nodes"]
    assert (change["action"], change["new"], change["reason"]) == ("FORGET", None, "the user asked")
    again = (await acme(FORGET, s="Editor"))["forgetKnowledge"]
    assert again == {"__typename": "NotFoundError", "code": "NOT_FOUND", "field": "subject"}
    await store(acme, "Editor", "Uses Helix")  # storing again continues the versions
    assert [n["version"] for n in (await history(acme))["nodes"]] == [2, 1]


async def test_another_client_neither_reads_nor_forgets_the_item(api: Api) -> None:
    acme, beta = api.as_(ACME), api.as_(BETA)
    await store(acme, "Editor", "Uses vim")
    await store(acme, "Editor", "Uses Neovim")
    assert (await history(beta))["nodes"] == []
    assert (await beta(CHANGES))["changes"]["nodes"] == []
    refused = (await beta(FORGET, s="Editor"))["forgetKnowledge"]
    # The same answer as for a subject nobody stored: nothing about acme is revealed.
    assert refused == (await beta(FORGET, s="Nothing"))["forgetKnowledge"]
    assert refused["code"] == "NOT_FOUND"
    assert len((await history(acme))["nodes"]) == 2


async def test_bad_arguments_are_named(api: Api) -> None:
    acme = api.as_(ACME)
    bad_user = await store(acme, "Editor", "Uses vim", u="alice")
    assert bad_user == {"__typename": "ValidationError", "code": "INVALID", "field": "userKey"}
    forget = (await acme(FORGET, s="Editor", r="x" * 1001))["forgetKnowledge"]
    assert forget["field"] == "reason"
    for variables, field in (({"after": "nonsense"}, "after"), ({"first": 0}, "first")):
        result = await acme.execute(HISTORY, s="Editor", **variables)
        assert result.errors and result.errors[0].extensions
        assert result.errors[0].extensions["field"] == field, result.errors

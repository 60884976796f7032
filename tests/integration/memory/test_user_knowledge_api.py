"""storeKnowledge and userContext on the real stack: readable at once, replaced not piled up,
read without embedding, and never visible to another client."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from tests.support.counting_embedder import CountingEmbedder
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

STORE = """mutation S($subject: String!, $content: String!, $category: KnowledgeCategory!,
                   $scope: ScopeInput) {
  storeKnowledge(subject: $subject, content: $content, category: $category, scope: $scope) {
    __typename
    ... on StoreKnowledgeSuccess { sourceUrn kind category subject status }
    ... on Error { code field } } }"""
CONTEXT = """query C($scope: ScopeInput, $limit: Int! = 100) {
  userContext(scope: $scope, limitPerCategory: $limit) {
    categories { category items { subject content updatedAt scope { clientId projectId } } }
    markdown } }"""
ACME_WEB = Principal("acme-web", Scope("acme", "web"), Role.AGENT)
ACME_API = Principal("acme-api", Scope("acme", "api"), Role.AGENT)
ACME = Principal("acme", Scope("acme"), Role.AGENT)
BETA_WEB = Principal("beta-web", Scope("beta", "web"), Role.AGENT)
BETA = Principal("beta", Scope("beta"), Role.UI)
# A generated-looking AWS key id (the documented example is a placeholder and passes).
CREDENTIAL = "AKIAIOSFODNN7EXAMPLF"


async def store(api: Api, subject: str, content: str, category: str = "PREFERENCE",
                scope: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    variables = {"subject": subject, "content": content, "category": category, "scope": scope}
    result: dict[str, Any] = (await api(STORE, **variables))["storeKnowledge"]
    return result


async def context(api: Api, **variables: Any) -> dict[str, Any]:
    found: dict[str, Any] = (await api(CONTEXT, **variables))["userContext"]
    return found


def items(found: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    """Per non-empty category: (subject, content) in the order returned."""
    return {
        group["category"]: [(i["subject"], i["content"]) for i in group["items"]]
        for group in found["categories"]
        if group["items"]
    }


async def test_stored_knowledge_is_in_the_user_context_at_once_read_without_embedding(
    api: Api, embedder: CountingEmbedder
) -> None:
    web = api.as_(ACME_WEB)
    done = await store(web, "Editor", "Uses vim", "TECH_STACK")
    assert done == {
        "__typename": "StoreKnowledgeSuccess",
        "sourceUrn": done["sourceUrn"],
        "kind": "user_knowledge_tech_stack",
        "category": "TECH_STACK",
        "subject": "Editor",
        "status": "INDEXED",
    }
    await store(web, "Language", "Answers in German", "PREFERENCE")
    await store(web, "Timezone", "CET", "GENERAL")
    embedded = embedder.calls
    found = await context(web)
    assert embedder.calls == embedded  # the read asked the embedder nothing
    assert [g["category"] for g in found["categories"]] == [
        "PREFERENCE", "DOMAIN", "TEAM", "TECH_STACK", "PERSONAL", "GENERAL"
    ]  # fmt: skip
    assert items(found) == {
        "PREFERENCE": [("Language", "Answers in German")],
        "TECH_STACK": [("Editor", "Uses vim")],
        "GENERAL": [("Timezone", "CET")],
    }
    assert found["markdown"] == (
        "## Preferences\n\n- **Language**: Answers in German\n\n"
        "## Tech stack\n\n- **Editor**: Uses vim\n\n"
        "## General\n\n- **Timezone**: CET\n"
    )
    assert found["categories"][0]["items"][0]["scope"] == {"clientId": "acme", "projectId": "web"}


async def test_storing_the_same_subject_again_replaces_it(api: Api, pool: asyncpg.Pool) -> None:
    web = api.as_(ACME_WEB)
    first = await store(web, "Code  editor", "Uses vim")
    again = await store(web, "code editor", "Uses emacs")
    assert again["sourceUrn"] == first["sourceUrn"] and again["status"] == "INDEXED"
    assert items(await context(web)) == {"PREFERENCE": [("code editor", "Uses emacs")]}
    rows = await pool.fetchval(
        "SELECT count(*) FROM chunks WHERE source_urn = $1", first["sourceUrn"]
    )
    assert rows == 1
    same = await store(web, "code editor", "Uses emacs")
    assert same["status"] == "SKIPPED_DUPLICATE"


async def test_long_content_comes_back_whole_from_its_chunks(api: Api) -> None:
    paragraphs = [f"Paragraph {n}: " + "word " * 190 for n in range(3)]
    content = "\n\n".join(p.strip() for p in paragraphs)  # over the 1,500-character chunks
    web = api.as_(ACME_WEB)
    await store(web, "History", content, "PERSONAL")
    assert items(await context(web)) == {"PERSONAL": [("History", content)]}


async def test_another_client_sees_nothing_not_even_with_a_client_wide_key(api: Api) -> None:
    await store(api.as_(ACME_WEB), "Editor", "Uses vim")
    await store(api.as_(ACME), "Team", "Platform team", "TEAM")
    await store(api, "Team", "Beta's own", "TEAM", scope={"clientId": "beta"})
    for reader in (BETA_WEB, BETA):
        found = await context(api.as_(reader))
        assert items(found) == {"TEAM": [("Team", "Beta's own")]}
        assert "acme" not in found["markdown"].lower() and "vim" not in found["markdown"]
    refused = await api.as_(BETA).execute(CONTEXT, scope={"clientId": "acme"})
    assert refused.data is None and refused.errors is not None
    assert refused.errors[0].extensions is not None
    assert refused.errors[0].extensions["code"] == "FORBIDDEN"


async def test_the_scope_nearest_the_reader_wins_for_one_subject(api: Api) -> None:
    await store(api.as_(ACME_API), "EDITOR", "Project api: nano")
    await store(api.as_(ACME), "Editor", "Client-wide: vim")
    await store(api.as_(ACME_WEB), "editor", "Project web: emacs")
    assert items(await context(api.as_(ACME_WEB))) == {
        "PREFERENCE": [("editor", "Project web: emacs")]
    }
    assert items(await context(api.as_(ACME_API))) == {
        "PREFERENCE": [("EDITOR", "Project api: nano")]
    }
    other = Principal("acme-docs", Scope("acme", "docs"), Role.AGENT)
    assert items(await context(api.as_(other))) == {"PREFERENCE": [("Editor", "Client-wide: vim")]}
    # A client-wide reader sees every project's row too; its own level comes first.
    assert items(await context(api.as_(ACME))) == {"PREFERENCE": [("Editor", "Client-wide: vim")]}


async def test_each_category_keeps_its_most_recently_updated_items(api: Api) -> None:
    web = api.as_(ACME_WEB)
    for subject in ("a", "b", "c"):
        await store(web, subject, f"about {subject}", "DOMAIN")
    await store(web, "a", "about a, again", "DOMAIN")
    await store(web, "z", "other", "TEAM")
    found = items(await context(web, limit=2))
    assert found == {
        "DOMAIN": [("a", "about a, again"), ("c", "about c")],
        "TEAM": [("z", "other")],
    }


@pytest.mark.parametrize(
    ("principal", "subject", "content", "member", "field"),
    [
        (ACME_WEB, " ", "x", "ValidationError", "subject"),
        (ACME_WEB, "Editor", "x" * 4001, "ValidationError", "content"),
        (ACME_WEB, "Cloud", f"deploys with {CREDENTIAL}", "SensitiveContentError", "content"),
        (ACME_WEB, f"key {CREDENTIAL}", "x", "SensitiveContentError", "subject"),
        (Principal("acme-ui", Scope("acme"), Role.UI), "Editor", "x", "ScopeError", None),
        (Principal("root", Scope(), Role.ADMIN), "Editor", "x", "ValidationError", "scope"),
    ],
)
async def test_refused_writes_are_union_members_and_store_nothing(
    api: Api, pool: asyncpg.Pool, principal: Principal, subject: str, content: str,
    member: str, field: str | None,
) -> None:  # fmt: skip
    done = await store(api.as_(principal), subject, content)
    assert done["__typename"] == member
    if field is not None:
        assert done["field"] == field
    assert await pool.fetchval("SELECT count(*) FROM chunks") == 0


async def test_between_two_other_projects_the_first_by_id_wins(api: Api) -> None:
    await store(api.as_(ACME_WEB), "Editor", "Project web: emacs")
    await store(api.as_(ACME_API), "editor", "Project api: nano")
    assert items(await context(api.as_(ACME))) == {"PREFERENCE": [("editor", "Project api: nano")]}

"""Who a key is, admins managing keys over GraphQL, and chunk ids turned back into text."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.server_process import Server, create_key

pytestmark = pytest.mark.e2e

CREATE = """mutation Create($input: CreateApiKeyInput!) { createApiKey(input: $input) {
  __typename ... on CreateApiKeySuccess { key apiKey { id role label scope { clientId } } }
  ... on Error { code message } } }"""
REVOKE = """mutation Revoke($id: ID!) { revokeApiKey(id: $id) {
  __typename ... on RevokeApiKeySuccess { apiKey { revokedAt } } ... on Error { code } } }"""
LIST = "{ apiKeys(includeRevoked: true) { id label revokedAt scope { clientId } } }"


def call(server: Server, key: str, query: str, **variables: Any) -> httpx.Response:
    return httpx.post(
        f"{server.url}/graphql",
        json={"query": query, "variables": variables},
        headers={"Authorization": f"Bearer {key}"},
        timeout=30,
    )


def data(server: Server, key: str, query: str, **variables: Any) -> Any:
    body = call(server, key, query, **variables).json()
    assert "errors" not in body, body
    return body["data"]


def key_of(settings: Settings, scope: Scope, role: Role) -> str:
    return asyncio.run(create_key(settings, scope, role))


def test_viewer_says_who_the_key_is(server: Server, migrated_settings: Settings) -> None:
    ui = key_of(migrated_settings, Scope("acme", "web", "front"), Role.UI)
    viewer = data(
        server, ui, "{ viewer { keyId role anonymous scope { clientId projectId groupId } } }"
    )
    assert viewer["viewer"]["role"] == "UI" and viewer["viewer"]["anonymous"] is False
    assert viewer["viewer"]["scope"] == {"clientId": "acme", "projectId": "web", "groupId": "front"}
    assert viewer["viewer"]["keyId"]


def test_an_admin_creates_lists_and_revokes_keys_of_its_own_client(
    server: Server, migrated_settings: Settings
) -> None:
    admin = key_of(migrated_settings, Scope("acme"), Role.ADMIN)
    made = data(
        server,
        admin,
        CREATE,
        input={
            "role": "AGENT",
            "label": "ci bot",
            "scope": {"clientId": "acme", "projectId": "ci"},
        },
    )
    created = made["createApiKey"]
    assert created["__typename"] == "CreateApiKeySuccess"
    assert created["apiKey"]["role"] == "AGENT" and created["key"].startswith("kn_")
    new_key, new_id = created["key"], created["apiKey"]["id"]
    # The new key works, and is what it says.
    assert data(server, new_key, "{ viewer { role } }")["viewer"]["role"] == "AGENT"
    listed = data(server, admin, LIST)["apiKeys"]
    assert new_id in {k["id"] for k in listed}
    assert {k["scope"]["clientId"] for k in listed} == {"acme"}
    assert all("key" not in k for k in listed)  # the text is never shown again
    revoked = data(server, admin, REVOKE, id=new_id)["revokeApiKey"]
    assert revoked["__typename"] == "RevokeApiKeySuccess" and revoked["apiKey"]["revokedAt"]
    assert call(server, new_key, "{ viewer { role } }").status_code == 401


def test_an_admin_cannot_reach_keys_of_another_client(
    server: Server, migrated_settings: Settings
) -> None:
    acme = key_of(migrated_settings, Scope("acme"), Role.ADMIN)
    globex = key_of(migrated_settings, Scope("globex"), Role.ADMIN)
    wider = data(server, acme, CREATE, input={"role": "ADMIN", "scope": {"clientId": "globex"}})
    assert (wider["createApiKey"]["__typename"], wider["createApiKey"]["code"]) == (
        "ScopeError",
        "OUT_OF_SCOPE",
    )
    theirs = data(server, globex, CREATE, input={"role": "UI", "label": "globex ui"})
    their_id = theirs["createApiKey"]["apiKey"]["id"]
    assert their_id not in {k["id"] for k in data(server, acme, LIST)["apiKeys"]}
    refused = data(server, acme, REVOKE, id=their_id)["revokeApiKey"]
    assert refused == {"__typename": "NotFoundError", "code": "NOT_FOUND"}
    still = call(server, theirs["createApiKey"]["key"], "{ viewer { role } }")
    assert still.status_code == 200


def test_only_admin_keys_manage_keys(server: Server, migrated_settings: Settings) -> None:
    agent = key_of(migrated_settings, Scope("acme"), Role.AGENT)
    listing = call(server, agent, LIST).json()
    assert listing["errors"][0]["extensions"]["code"] == "FORBIDDEN"
    made = data(server, agent, CREATE, input={"role": "UI"})["createApiKey"]
    assert made["__typename"] == "ScopeError"


def test_chunk_ids_from_an_evidence_pack_turn_back_into_text(
    server: Server, migrated_settings: Settings
) -> None:
    agent = key_of(migrated_settings, Scope("chunky"), Role.AGENT)
    other = key_of(migrated_settings, Scope("elsewhere"), Role.UI)
    content = "The invoice service calls service:payments when a refund is approved."
    ingest = data(
        server,
        agent,
        """mutation($input: IngestInput!) { ingest(input: $input) {
          ... on IngestSuccess { chunks { id } } } }""",
        input={"sourceUrn": "doc:chunky", "kind": "note", "content": content},
    )
    [chunk_id] = [c["id"] for c in ingest["ingest"]["chunks"]]
    pack = data(
        server,
        agent,
        """{ evidencePack(query: "refund approved invoice") {
          ... on EvidencePack { items { chunkIds } } } }""",
    )
    ids = [i for item in pack["evidencePack"]["items"] for i in item["chunkIds"]]
    assert chunk_id in ids
    read = """query($ids: [ID!]!, $id: ID!) {
      chunks(ids: $ids) { id content } chunk(id: $id) { sourceUrn } }"""
    mine = data(server, agent, read, ids=[chunk_id, "missing"], id=chunk_id)
    assert mine["chunks"] == [{"id": chunk_id, "content": content}, None]
    assert mine["chunk"] == {"sourceUrn": "doc:chunky"}
    hidden = data(server, other, read, ids=[chunk_id], id=chunk_id)
    assert hidden == {"chunks": [None], "chunk": None}


def test_a_project_admin_cannot_mint_a_key_that_sees_more(
    server: Server, migrated_settings: Settings
) -> None:
    admin = key_of(migrated_settings, Scope("acme", "web"), Role.ADMIN)
    for scope in ({"clientId": "acme", "projectId": "web", "groupId": "finance"},
                  {"clientId": "acme"}, {"clientId": "acme", "projectId": "pay"}):  # fmt: skip
        made = data(server, admin, CREATE, input={"role": "UI", "scope": scope})["createApiKey"]
        assert (made["__typename"], made["code"]) == ("ScopeError", "OUT_OF_SCOPE"), scope
    same = data(server, admin, CREATE, input={"role": "UI"})["createApiKey"]
    assert same["__typename"] == "CreateApiKeySuccess"

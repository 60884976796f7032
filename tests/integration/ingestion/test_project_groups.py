"""Writes settle a project's group against the recorded one, through GraphQL."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from tests.support.graph_data import scope_input
from tests.support.graphql_api import Api

pytestmark = pytest.mark.integration

INGEST = """
mutation($input: IngestInput!) {
  ingest(input: $input) { __typename ... on Error { code message } }
}"""
SCOPES = """
{ chunksByKind(kind: "note", limit: 50) { sourceUrn scope { clientId projectId groupId } } }
"""


def key(scope: Scope, role: Role = Role.AGENT) -> Principal:
    return Principal(key_id=f"key-{scope.describe()}", scope=scope, role=role)


async def ingest(api: Api, urn: str, scope: Scope | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {"sourceUrn": urn, "kind": "note", "content": f"Note {urn}."}
    if scope is not None:
        payload["scope"] = scope_input(scope)
    result: dict[str, Any] = (await api(INGEST, input=payload))["ingest"]
    return result


async def urns(api: Api, reader: Scope) -> set[str]:
    rows = (await api.as_(key(reader, Role.UI))(SCOPES))["chunksByKind"]
    return {row["sourceUrn"] for row in rows}


async def test_a_client_key_records_a_projects_group_and_may_not_name_another(
    api: Api, clean: None
) -> None:
    client = api.as_(key(Scope("c1")))
    assert (await ingest(client, "a", Scope("c1", "p1", "g1")))["__typename"] == "IngestSuccess"
    assert (await api.runtime.project_groups.of_client("c1")).group_of("c1", "p1") == "g1"
    refused = await ingest(client, "b", Scope("c1", "p1", "g2"))
    assert refused["__typename"] == "ScopeError"
    assert "is in group 'g1', not 'g2'" in refused["message"]
    assert await urns(api, Scope("c1", "", "g2")) == set()  # nothing was stored


async def test_a_project_key_may_not_put_its_project_in_a_group(api: Api, clean: None) -> None:
    project = api.as_(key(Scope("c1", "p5")))
    refused = await ingest(project, "a", Scope("c1", "p5", "g1"))
    assert refused["__typename"] == "ScopeError"
    assert (await api.runtime.project_groups.of_client("c1")).groups == {}
    # Its own scope, naming no group, is fine; group g1 does not see it.
    assert (await ingest(project, "b"))["__typename"] == "IngestSuccess"
    assert await urns(api, Scope("c1", "", "g1")) == set()


async def test_a_key_minted_before_its_project_moved_writes_at_the_new_group(
    api: Api, clean: None
) -> None:
    minted = api.as_(key(Scope("c1", "p1", "g1")))
    assert (await ingest(minted, "before"))["__typename"] == "IngestSuccess"
    assert await api.runtime.project_groups.move("c1", "p1", "g2") == "g1"
    assert (await ingest(minted, "after"))["__typename"] == "IngestSuccess"
    rows = (await api.as_(key(Scope("c1"), Role.UI))(SCOPES))["chunksByKind"]
    stored = {row["sourceUrn"]: row["scope"]["groupId"] for row in rows}
    assert stored == {"before": "g1", "after": "g2"}
    # Both follow the project: the new group sees them, the old one does not.
    assert await urns(api, Scope("c1", "", "g2")) == {"before", "after"}
    assert await urns(api, Scope("c1", "", "g1")) == set()


async def test_a_global_keys_write_into_a_client_is_logged(
    api: Api, clean: None, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="kenning.resolvers.scope"):
        assert (await ingest(api, "a", Scope("c1", "p1")))["__typename"] == "IngestSuccess"
    [record] = [r for r in caplog.records if r.getMessage() == "scope.global_key_write"]
    assert (record.__dict__["key_id"], record.__dict__["scope"]) == (
        "test-root",
        "client=c1 project=p1",
    )


CREATE_KEY = """
mutation($scope: ScopeInput!) {
  createApiKey(input: {role: AGENT, scope: $scope}) {
    __typename ... on Error { code message }
  }
}"""


async def test_a_new_key_records_its_projects_group_or_is_refused_for_another(
    api: Api, clean: None
) -> None:
    admin = api.as_(key(Scope("c1"), Role.ADMIN))
    created = await admin(CREATE_KEY, scope=scope_input(Scope("c1", "p1", "g1")))
    assert created["createApiKey"]["__typename"] == "CreateApiKeySuccess"
    assert (await api.runtime.project_groups.of_client("c1")).group_of("c1", "p1") == "g1"
    refused = (await admin(CREATE_KEY, scope=scope_input(Scope("c1", "p1", "g2"))))["createApiKey"]
    assert refused["__typename"] == "ScopeError" and "is in group 'g1'" in refused["message"]


async def test_a_write_never_puts_a_project_taken_out_of_its_group_back(
    api: Api, clean: None
) -> None:
    minted = api.as_(key(Scope("c1", "p1", "g1")))
    assert (await ingest(minted, "before"))["__typename"] == "IngestSuccess"
    assert await api.runtime.project_groups.move("c1", "p1", "") == "g1"
    # The old key still writes, at no group; a client-wide key may not put it back.
    assert (await ingest(minted, "after"))["__typename"] == "IngestSuccess"
    refused = await ingest(api.as_(key(Scope("c1"))), "again", Scope("c1", "p1", "g1"))
    assert refused["__typename"] == "ScopeError" and "taken out of its group" in refused["message"]
    assert (await api.runtime.project_groups.of_client("c1")).recorded("c1", "p1") == ""
    assert await urns(api, Scope("c1", "", "g1")) == set()
    assert await urns(api, Scope("c1", "p1", "g1")) == {"before", "after"}


REGISTER = """
mutation($input: RegisterConnectionInput!) {
  registerConnection(input: $input) { __typename ... on Error { code message } }
}"""


async def test_a_write_may_name_only_a_connection_of_its_own_scope(api: Api, clean: None) -> None:
    for connection, scope in (("p2-wiki", Scope("c1", "p2", "g2")), ("shared", Scope("c1"))):
        registered = {"connectionId": connection, "authority": "wiki", "label": connection,
                      "scope": scope_input(scope)}  # fmt: skip
        result = (await api(REGISTER, input=registered))["registerConnection"]
        assert result["__typename"] == "RegisterConnectionSuccess", result
    writer = api.as_(key(Scope("c1", "p1")))

    async def write(connection: str) -> dict[str, Any]:
        payload = {
            "sourceUrn": "a",
            "kind": "note",
            "content": "A note.",
            "connectionId": connection,
        }
        result: dict[str, Any] = (await writer(INGEST, input=payload))["ingest"]
        return result

    other, unknown = await write("p2-wiki"), await write("nobody")
    assert other["__typename"] == unknown["__typename"] == "ValidationError"
    # Another project's connection is answered as an unknown one.
    assert other["message"] == unknown["message"].replace("nobody", "p2-wiki")
    assert (await write("shared"))["__typename"] == "IngestSuccess"

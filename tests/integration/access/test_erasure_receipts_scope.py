"""erasureReceipts follows the scope rule: each reader kind of the scope table, in each role,
sees exactly its own client's receipts with an admin key and nothing otherwise; a global
admin names the client; no receipt ever shows the erased key."""

from __future__ import annotations

import json

import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.domain.queue.jobs import JobStatus
from tests.support.erasure_world import run_priority_jobs
from tests.support.graphql_api import Api
from tests.support.leaks.corpus import principal
from tests.support.leaks.scope_table import READERS

pytestmark = pytest.mark.integration

ERASE = """mutation($key: String!, $client: String!) {
  eraseSubject(key: $key, mode: DELETE, scope: {clientId: $client}) {
    __typename ... on ErasureRequested { receipt { id } } } }"""
RECEIPTS = """query($scope: ScopeInput) { erasureReceipts(scope: $scope) {
  id mode status requestedBy jobId total counts { kind count } } }"""
KEYS = {"c1": ["person:ann-secret", "person:nobody-known"], "c2": ["person:bea-secret"]}


@pytest.fixture
async def receipts(api: Api) -> dict[str, set[str]]:
    """Client → the ids of its receipts (erasures asked by a global admin, then run)."""
    ids: dict[str, set[str]] = {}
    for client, keys in KEYS.items():
        for key in keys:
            asked = (await api(ERASE, key=key, client=client))["eraseSubject"]
            ids.setdefault(client, set()).add(asked["receipt"]["id"])
    assert set(await run_priority_jobs(api.runtime)) == {JobStatus.INDEXED}
    return ids


def no_key_in(answer: object) -> None:
    text = json.dumps(answer).lower()
    assert not any(word in text for word in ("ann-secret", "bea-secret", "nobody-known"))


@pytest.mark.parametrize("role", list(Role))
@pytest.mark.parametrize("name", list(READERS))
async def test_each_reader_sees_only_its_clients_receipts_with_an_admin_key(
    api: Api, receipts: dict[str, set[str]], name: str, role: Role
) -> None:
    scope, _ = READERS[name]
    result = await api.as_(principal(scope, role)).execute(RECEIPTS)
    no_key_in(result.data)
    no_key_in([e.message for e in result.errors or []])
    if role is not Role.ADMIN:
        assert result.data is None and result.errors
        assert {(e.extensions or {}).get("code") for e in result.errors} == {"FORBIDDEN"}
        return
    if not scope.client_id:
        assert result.errors and (result.errors[0].extensions or {}).get("field") == "clientId"
        return
    assert result.errors is None and result.data is not None
    got = {r["id"] for r in result.data["erasureReceipts"]}
    assert got == receipts.get(scope.client_id, set())
    assert all(r["status"] == "DONE" for r in result.data["erasureReceipts"])


async def test_a_global_admin_names_the_client_and_a_client_admin_cannot_name_another(
    api: Api, receipts: dict[str, set[str]]
) -> None:
    for client in ("c1", "c2"):
        listed = (await api(RECEIPTS, scope={"clientId": client}))["erasureReceipts"]
        assert {r["id"] for r in listed} == receipts[client]
    other = await api.as_(principal(Scope("c1"), Role.ADMIN)).execute(
        RECEIPTS, scope={"clientId": "c2"}
    )
    assert other.errors and (other.errors[0].extensions or {}).get("code") == "FORBIDDEN"
    asked = await api.as_(principal(Scope("c1"), Role.ADMIN))(
        ERASE, key="person:ann-secret", client="c2"
    )
    assert asked["eraseSubject"]["__typename"] == "ScopeError"

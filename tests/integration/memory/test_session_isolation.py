"""Session memory is per client and project: no other client ever reads an entry, whatever
key it uses, and a project's session is not another project's."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.runtime import Runtime
from tests.support.graphql_api import Api
from tests.support.memory_session import APPEND, READ, entry_vars

pytestmark = pytest.mark.integration

A_WEB = Principal("a-web", Scope("acme", "web"), Role.AGENT)
A_CLIENT = Principal("a-client", Scope("acme"), Role.AGENT)
B_WEB = Principal("b-web", Scope("beta", "web"), Role.AGENT)
B_CLIENT = Principal("b-client", Scope("beta"), Role.AGENT)
B_ADMIN = Principal("b-admin", Scope("beta"), Role.ADMIN)


@pytest.fixture
async def api(runtime: Runtime, pool: asyncpg.Pool) -> AsyncIterator[Api]:
    """Client acme with an entry in project web and one client-wide."""
    await pool.execute("TRUNCATE session_entries")
    acme = Api(runtime, A_WEB)
    for who, summary in ((A_WEB, "acme web secret plan"), (A_CLIENT, "acme client-wide note")):
        done = await acme.as_(who)(APPEND, **entry_vars(summary))
        assert done["appendSessionEntry"]["__typename"] == "AppendSessionEntrySuccess"
    yield acme


async def summaries(api: Api, **variables: object) -> list[str]:
    return [e["summary"] for e in (await api(READ, **variables))["sessionMemory"]]


@pytest.mark.parametrize("reader", [B_WEB, B_CLIENT, B_ADMIN], ids=lambda p: p.key_id)
async def test_another_client_reads_nothing_of_acme(api: Api, reader: Principal) -> None:
    other = api.as_(reader)
    assert await summaries(other) == []
    # Narrowing to a project of the same name is still beta's own session.
    assert await summaries(other, scope={"clientId": "beta", "projectId": "web"}) == []
    refused = await other.execute(READ, scope={"clientId": "acme", "projectId": "web"})
    assert refused.data is None and refused.errors is not None
    assert "outside" in refused.errors[0].message
    wrote = (await other(APPEND, **entry_vars("beta's own")))["appendSessionEntry"]
    assert wrote["__typename"] == "AppendSessionEntrySuccess"
    assert await summaries(api) == ["acme web secret plan"]


async def test_another_client_cannot_append_into_acme(api: Api) -> None:
    intrusion = await api.as_(B_CLIENT)(
        APPEND, **entry_vars("planted", scope={"clientId": "acme", "projectId": "web"})
    )
    assert intrusion["appendSessionEntry"]["__typename"] == "ScopeError"
    assert await summaries(api) == ["acme web secret plan"]


async def test_each_project_and_the_client_have_sessions_of_their_own(api: Api) -> None:
    assert await summaries(api) == ["acme web secret plan"]
    assert await summaries(api.as_(A_CLIENT)) == ["acme client-wide note"]
    # A client-wide key may narrow to a project of its client and read that session.
    narrowed = await summaries(api.as_(A_CLIENT), scope={"clientId": "acme", "projectId": "web"})
    assert narrowed == ["acme web secret plan"]
    api_project = Principal("a-api", Scope("acme", "api"), Role.AGENT)
    assert await summaries(api.as_(api_project)) == []


async def test_a_global_key_must_name_the_client_whose_session_it_means(api: Api) -> None:
    root = api.as_(Principal("root", Scope(), Role.ADMIN))
    unnamed = (await root(APPEND, **entry_vars("whose?")))["appendSessionEntry"]
    assert unnamed["__typename"] == "ScopeError" and unnamed["field"] == "scope"
    refused = await root.execute(READ)
    assert refused.errors is not None and "client" in refused.errors[0].message
    named = await summaries(root, scope={"clientId": "acme", "projectId": "web"})
    assert named == ["acme web secret plan"]


async def test_a_group_keys_session_entries_stay_in_its_group(api: Api) -> None:
    """A group key's entry is its group's, as its chunks are: another group of the same
    client must not read it (its chunks at that scope are hidden from that group)."""
    g1 = api.as_(Principal("g1-agent", Scope("acme", "", "g1"), Role.AGENT))
    g2 = api.as_(Principal("g2-ui", Scope("acme", "", "g2"), Role.UI))
    appended = await g1(APPEND, **entry_vars("group g1 only: the billing migration plan"))
    assert appended["appendSessionEntry"]["__typename"] == "AppendSessionEntrySuccess"
    assert await summaries(g1) == ["group g1 only: the billing migration plan"]
    assert await summaries(g2) == []

"""Jobs and connections follow the knowledge's scope rule: each reader kind of the scope
table sees exactly the jobs and connections of the rows it may read, on every queue read
path (``jobs``, ``connections``, ``connection``), and a project move changes it at once."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.domain.access.scope import Scope
from tests.support.graph_data import scope_input
from tests.support.graphql_api import Api
from tests.support.leaks.corpus import principal
from tests.support.leaks.scope_table import READERS, ROWS

pytestmark = pytest.mark.integration

REGISTER = """
mutation($input: RegisterConnectionInput!) {
  registerConnection(input: $input) { __typename ... on Error { code message } }
}"""
READ = """
{
  jobs(first: 100) { nodes { connectionId scope { clientId projectId groupId } } }
  connections(first: 100) { connectionId scope { clientId projectId groupId } }
}"""
ONE = "query($id: String!) { connection(connectionId: $id) { connectionId } }"


def connection_id(row: str) -> str:
    return "conn-" + "-".join(row.replace(",", "").replace("'", "").split())


@pytest.fixture
async def registered(api: Api, clean: None) -> Api:
    async with api.runtime.pool.acquire() as conn:
        await conn.execute("TRUNCATE ingestion_jobs, connections")
    for row, (scope, _) in ROWS.items():
        if not scope.client_id:
            continue  # a connection belongs to a client
        result = await api(
            REGISTER,
            input={
                "connectionId": connection_id(row),
                "authority": "wiki",
                "label": row,
                "scope": scope_input(scope),
            },
        )
        assert result["registerConnection"]["__typename"] == "RegisterConnectionSuccess", result
    # Registering a connection at a project and group records the project's group.
    groups = await api.runtime.project_groups.of_client("c1")
    assert groups.groups == {("c1", "p1"): "g1", ("c1", "p3"): "g1", ("c1", "p2"): "g2"}
    return api


async def _seen(api: Api, reader: Scope) -> dict[str, Any]:
    reading = api.as_(principal(reader))
    data = await reading(READ)
    jobs = {job["connectionId"] for job in data["jobs"]["nodes"]}
    connections = {c["connectionId"] for c in data["connections"]}
    if not reader.client_id:
        return {"jobs": jobs, "connections": connections}  # connection() needs a client
    one = set()
    for row in ROWS:
        found = (await reading(ONE, id=connection_id(row)))["connection"]
        if found is not None:
            one.add(found["connectionId"])
    return {"jobs": jobs, "connections": connections, "connection": one}


def _expected(rows: set[str]) -> set[str]:
    return {connection_id(row) for row in rows if ROWS[row][0].client_id}


@pytest.mark.parametrize("name", list(READERS))
async def test_each_reader_sees_exactly_the_jobs_and_connections_of_its_rows(
    registered: Api, name: str
) -> None:
    reader, expected = READERS[name]
    seen = await _seen(registered, reader)
    assert seen == dict.fromkeys(seen, _expected(expected))


async def test_a_move_changes_which_group_sees_a_projects_jobs_and_connections(
    registered: Api,
) -> None:
    sibling = {connection_id("sibling project"), connection_id("sibling project, no group named")}
    group_one, project_two = Scope("c1", "", "g1"), Scope("c1", "p2")
    assert sibling <= (await _seen(registered, group_one))["jobs"]
    assert not sibling & (await _seen(registered, project_two))["connections"]
    await registered.runtime.project_groups.move("c1", "p3", "g2")
    for path, ids in (await _seen(registered, group_one)).items():
        assert not sibling & ids, path
    for path, ids in (await _seen(registered, project_two)).items():
        assert sibling <= ids, path

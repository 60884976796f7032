"""Procedures keep their past on the real stack: saving the same trigger again, updateProcedure
and deleteProcedure each leave a version in procedureHistory and a change in the log, and
another client's procedure is answered as an unknown one."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from tests.support.graphql_api import Api
from tests.support.memory_procedures import WordEmbedder

pytestmark = pytest.mark.integration

SAVE = """mutation($input: SaveProcedureInput!) { saveProcedure(input: $input) {
  __typename ... on Procedure { id version description userKey agentId }
  ... on Error { code field } } }"""
UPDATE = """mutation($id: ID!, $input: UpdateProcedureInput!, $reason: String) {
  updateProcedure(id: $id, input: $input, reason: $reason) {
    __typename ... on Procedure { id version triggerPattern description }
    ... on Error { code field } } }"""
DELETE = """mutation($id: ID!, $reason: String) { deleteProcedure(id: $id, reason: $reason) {
  __typename ... on DeleteProcedureSuccess { procedure { id version } }
  ... on Error { code field } } }"""
HISTORY = """query($id: ID!, $first: Int! = 20, $after: String) {
  procedureHistory(id: $id, first: $first, after: $after) {
    nodes { version description createdBy supersededAt deletedAt } endCursor hasNextPage } }"""
CHANGES = """query($id: ID) { changes(itemId: $id) {
  nodes { itemKind itemKey action old new reason changedBy } } }"""
FIND = """{ procedures(triggerPattern: "deploy the web app") { procedure { id } } }"""
ACME = Principal("acme-agent", Scope("acme"), Role.AGENT)
BETA = Principal("beta-agent", Scope("beta"), Role.AGENT)


@pytest.fixture
def embedder(migrated_settings: Settings) -> WordEmbedder:
    return WordEmbedder(migrated_settings.embedding_dim)


@pytest.fixture(autouse=True)
async def no_procedures(pool: asyncpg.Pool) -> None:
    await pool.execute("TRUNCATE procedures, procedure_versions, changes")


def procedure(description: str, trigger: str = "deploy the web app", **more: Any) -> Any:
    steps = [{"agent": "ops", "action": "roll_out", "parameters": {}}]
    return {"triggerPattern": trigger, "description": description, "steps": steps, **more}


async def save(api: Api, description: str, **more: Any) -> dict[str, Any]:
    found: dict[str, Any] = (await api(SAVE, input=procedure(description, **more)))["saveProcedure"]
    assert found["__typename"] == "Procedure", found
    return found


async def history(api: Api, procedure_id: str, **more: Any) -> dict[str, Any]:
    found: dict[str, Any] = (await api(HISTORY, id=procedure_id, **more))["procedureHistory"]
    return found


async def test_saving_the_same_trigger_again_is_the_next_version(api: Api) -> None:
    acme = api.as_(ACME)
    first = await save(acme, "Build, then roll out.", agentId="planner")
    second = await save(acme, "Build, test, then roll out.", reason="tests were skipped")
    assert (second["id"], second["version"], second["agentId"]) == (first["id"], 2, "planner")
    assert [p["procedure"]["id"] for p in (await acme(FIND))["procedures"]] == [first["id"]]
    found = await history(acme, first["id"])
    assert [(n["version"], n["description"]) for n in found["nodes"]] == [
        (2, "Build, test, then roll out."),
        (1, "Build, then roll out."),
    ]
    assert found["nodes"][0]["supersededAt"] is None and found["nodes"][1]["supersededAt"]
    [change] = (await acme(CHANGES, id=first["id"]))["changes"]["nodes"]
    assert (change["itemKind"], change["action"], change["reason"]) == (
        "PROCEDURE",
        "UPDATE",
        "tests were skipped",
    )
    assert change["old"]["description"] == "Build, then roll out."
    assert change["new"]["version"] == 2 and change["itemKey"] == "deploy the web app"
    same = await save(acme, "Build, test, then roll out.")  # nothing new: no version
    assert same["version"] == 2


async def test_update_makes_a_version_and_an_unchanged_update_makes_none(api: Api) -> None:
    acme = api.as_(ACME)
    saved = await save(acme, "Build, then roll out.")
    input_ = {"description": "Roll out behind a canary."}
    updated = await acme(UPDATE, id=saved["id"], input=input_, reason="canary")
    assert updated["updateProcedure"]["version"] == 2
    assert updated["updateProcedure"]["triggerPattern"] == "deploy the web app"
    again = (await acme(UPDATE, id=saved["id"], input=input_))["updateProcedure"]
    assert again["version"] == 2
    assert len((await history(acme, saved["id"]))["nodes"]) == 2
    empty = (await acme(UPDATE, id=saved["id"], input={}))["updateProcedure"]
    assert (empty["code"], empty["field"]) == ("INVALID", "input")
    no_steps = (await acme(UPDATE, id=saved["id"], input={"steps": []}))["updateProcedure"]
    assert no_steps["field"] == "steps"


async def test_an_update_onto_another_procedures_trigger_is_a_conflict(api: Api) -> None:
    acme = api.as_(ACME)
    await save(acme, "Roll out.", trigger="deploy the web app")
    other = await save(acme, "Roll back.", trigger="roll back the web app")
    update = {"triggerPattern": "Deploy the web app"}
    result = (await acme(UPDATE, id=other["id"], input=update))["updateProcedure"]
    assert result == {"__typename": "ConflictError", "code": "CONFLICT", "field": "triggerPattern"}
    assert len((await history(acme, other["id"]))["nodes"]) == 1  # nothing half-written


async def test_delete_removes_it_from_every_read_and_keeps_its_history(api: Api) -> None:
    acme = api.as_(ACME)
    saved = await save(acme, "Build, then roll out.")
    done = (await acme(DELETE, id=saved["id"], reason="replaced by CI"))["deleteProcedure"]
    assert done == {
        "__typename": "DeleteProcedureSuccess",
        "procedure": {"id": saved["id"], "version": 1},
    }
    assert (await acme(FIND))["procedures"] == []
    [kept] = (await history(acme, saved["id"]))["nodes"]
    assert kept["deletedAt"] is not None and kept["description"] == "Build, then roll out."
    [change] = (await acme(CHANGES, id=saved["id"]))["changes"]["nodes"]
    assert (change["action"], change["new"], change["reason"]) == ("DELETE", None, "replaced by CI")
    again = (await acme(DELETE, id=saved["id"]))["deleteProcedure"]
    assert (again["code"], again["field"]) == ("NOT_FOUND", "id")


async def test_another_clients_procedure_is_answered_as_an_unknown_one(api: Api) -> None:
    acme, beta = api.as_(ACME), api.as_(BETA)
    saved = await save(acme, "Build, then roll out.")
    for procedure_id in (saved["id"], "no-such-id"):
        update = await beta(UPDATE, id=procedure_id, input={"description": "Mine now."})
        assert (update["updateProcedure"]["code"], update["updateProcedure"]["field"]) == (
            "NOT_FOUND",
            "id",
        )
        delete = (await beta(DELETE, id=procedure_id))["deleteProcedure"]
        assert (delete["code"], delete["field"]) == ("NOT_FOUND", "id")
        result = await beta.execute(HISTORY, id=procedure_id)
        assert result.errors and result.errors[0].extensions
        assert result.errors[0].extensions["code"] == "NOT_FOUND"
    assert (await beta(CHANGES, id=saved["id"]))["changes"]["nodes"] == []
    assert (await history(acme, saved["id"]))["nodes"][0]["description"] == (
        "Build, then roll out."
    )

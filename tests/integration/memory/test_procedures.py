"""Procedural memory over GraphQL on the real stack: save, find, record runs, isolation."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import numpy as np
import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.priorities import QUERY_PRIORITY
from kenning.settings import Settings
from tests.support.graphql_api import Api
from tests.support.memory_procedures import WordEmbedder

pytestmark = pytest.mark.integration

SAVE = """mutation S($input: SaveProcedureInput!) { saveProcedure(input: $input) {
  __typename
  ... on Procedure { id triggerPattern description source usageCount successRate lastUsed
                     createdBy steps { agent action parameters } }
  ... on Error { code field }
  ... on SensitiveContentError { findings { kind } } } }"""
FIND = """query F($trigger: String, $text: String, $limit: Int! = 10, $scope: ScopeInput,
                $user: String) {
  procedures(triggerPattern: $trigger, query: $text, limit: $limit, scope: $scope,
             userKey: $user) {
    exactMatch similarity score procedure { id triggerPattern source usageCount } } }"""
RUN = """mutation R($id: ID!, $success: Boolean!) { recordProcedureRun(id: $id, success: $success) {
  __typename ... on Procedure { id usageCount successRate lastUsed }
  ... on Error { code field } } }"""


def key(client: str, role: Role = Role.AGENT, project: str = "") -> Principal:
    return Principal(f"{client}-{project}-{role.value}", Scope(client, project), role)


@pytest.fixture
def embedder(migrated_settings: Settings) -> WordEmbedder:
    return WordEmbedder(migrated_settings.embedding_dim)


@pytest.fixture(autouse=True)
async def no_procedures(pool: asyncpg.Pool) -> None:
    await pool.execute("TRUNCATE procedures, procedure_versions, changes")


def step(agent: str = "coder", action: str = "run_tests", **parameters: Any) -> dict[str, Any]:
    return {"agent": agent, "action": action, "parameters": parameters}


async def save(
    api: Api, trigger: str, description: str, source: str = "LEARNED", user: str | None = None
) -> str:
    data = await api(
        SAVE,
        input={"triggerPattern": trigger, "description": description, "source": source,
               "steps": [step()], "userKey": user},
    )  # fmt: skip
    assert data["saveProcedure"]["__typename"] == "Procedure", data
    return str(data["saveProcedure"]["id"])


async def run(api: Api, procedure_id: str, success: bool) -> dict[str, Any]:
    return dict((await api(RUN, id=procedure_id, success=success))["recordProcedureRun"])


async def found(api: Api, **variables: Any) -> list[dict[str, Any]]:
    return list((await api(FIND, **variables))["procedures"])


async def test_a_saved_procedure_comes_back_whole_with_its_embedding_stored(
    api: Api, embedder: WordEmbedder, pool: asyncpg.Pool
) -> None:
    acme = api.as_(key("acme"))
    data = await acme(
        SAVE,
        input={
            "triggerPattern": "  Deploy   the web app ",
            "description": "Build, test and roll out.",
            "source": "USER_DEFINED",
            "steps": [step("coder", "build", target="web"), step("ops", "roll_out", canary=5)],
        },
    )
    saved = data["saveProcedure"]
    assert saved["triggerPattern"] == "Deploy the web app"
    assert saved["source"] == "USER_DEFINED"
    assert (saved["usageCount"], saved["successRate"], saved["lastUsed"]) == (0, None, None)
    assert saved["createdBy"] == "acme--agent"
    assert saved["steps"] == [
        {"agent": "coder", "action": "build", "parameters": {"target": "web"}},
        {"agent": "ops", "action": "roll_out", "parameters": {"canary": 5}},
    ]
    text = "Deploy the web app\n\nBuild, test and roll out."
    assert embedder.calls == [([text], QUERY_PRIORITY)]
    row = await pool.fetchrow(
        "SELECT client_id, embedding FROM procedures WHERE id = $1", saved["id"]
    )
    assert row is not None and row["client_id"] == "acme"
    assert np.allclose(row["embedding"].to_numpy(), embedder.vector(text), atol=1e-6)


async def test_exact_and_similar_procedures_are_found_and_unrelated_ones_are_not(
    api: Api,
) -> None:
    acme = api.as_(key("acme"))
    exact = await save(acme, "release mobile build", "Tag, sign and publish to the store.")
    similar = await save(acme, "deploy web service", "Compile, test and roll out the web service.")
    await save(acme, "water plants", "Fill a can, pour slowly.")
    by_trigger = await found(acme, trigger="RELEASE mobile   build")
    assert [(m["procedure"]["id"], m["exactMatch"]) for m in by_trigger] == [(exact, True)]
    by_query = await found(acme, text="roll out web service")
    assert [m["procedure"]["id"] for m in by_query] == [similar]
    assert by_query[0]["exactMatch"] is False and by_query[0]["similarity"] > 0.4
    both = await found(acme, trigger="release mobile build", text="roll out web service")
    assert [m["procedure"]["id"] for m in both] == [exact, similar]  # exact counts as match 1


async def test_user_defined_come_before_learned_and_learned_rank_by_track_record(
    api: Api,
) -> None:
    acme = api.as_(key("acme"))
    trigger = "deploy the web app"
    # One trigger and source is one procedure per user: Alice's is a second one.
    failing = await save(acme, trigger, "The old way.", user="user:alice")
    proven = await save(acme, trigger, "The way that works.")
    user = await save(
        acme, "ship web app", "As the team wants it: deploy the web app.", "USER_DEFINED"
    )
    for success in (True, True, True, False):
        await run(acme, proven, success)
    for success in (False, False, True):
        await run(acme, failing, success)
    ranked = await found(acme, trigger=trigger, text="deploy the web app", user="user:alice")
    assert [m["procedure"]["id"] for m in ranked] == [user, proven, failing]
    assert [m["procedure"]["source"] for m in ranked] == ["USER_DEFINED", "LEARNED", "LEARNED"]
    assert ranked[1]["score"] == pytest.approx(1 * 4 / 6, rel=1e-3)  # fresh: no decay yet
    assert ranked[2]["score"] == pytest.approx(1 * 2 / 5, rel=1e-3)
    assert len(await found(acme, trigger=trigger, text="deploy the web app", limit=1)) == 1
    shared = await found(acme, trigger=trigger, text="deploy the web app")
    assert [m["procedure"]["id"] for m in shared] == [user, proven]  # no user: not Alice's


async def test_a_run_updates_usage_last_use_and_success_rate(api: Api) -> None:
    acme = api.as_(key("acme"))
    procedure_id = await save(acme, "deploy", "Roll out.")
    first = await run(acme, procedure_id, True)
    assert (first["usageCount"], first["successRate"]) == (1, 1.0)
    assert first["lastUsed"] is not None
    second = await run(acme, procedure_id, False)
    assert (second["usageCount"], second["successRate"]) == (2, 0.5)
    assert second["lastUsed"] >= first["lastUsed"]


async def test_concurrent_runs_lose_no_count(api: Api) -> None:
    acme = api.as_(key("acme"))
    procedure_id = await save(acme, "deploy", "Roll out.")
    outcomes = [n % 3 != 0 for n in range(60)]
    await asyncio.gather(*(run(acme, procedure_id, ok) for ok in outcomes))
    [match] = await found(acme, trigger="deploy")
    assert match["procedure"]["usageCount"] == 60
    final = await run(acme, procedure_id, True)
    assert final["successRate"] == pytest.approx((sum(outcomes) + 1) / 61)


async def test_bad_input_is_a_validation_error_naming_the_field_and_stores_nothing(
    api: Api, pool: asyncpg.Pool
) -> None:
    acme = api.as_(key("acme"))
    cases: list[tuple[dict[str, Any], str]] = [
        ({"triggerPattern": " ", "description": "d", "steps": [step()]}, "triggerPattern"),
        ({"triggerPattern": "t", "description": "d", "steps": []}, "steps"),
        ({"triggerPattern": "t", "description": "d", "steps": [step(agent="")]},
         "steps[0].agent"),
        ({"triggerPattern": "t", "description": "d",
          "steps": [{"agent": "a", "action": "b", "parameters": [1, 2]}]}, "steps[0].parameters"),
    ]  # fmt: skip
    for given, field in cases:
        result = (await acme(SAVE, input=given))["saveProcedure"]
        assert (result["__typename"], result["field"]) == ("ValidationError", field), given
    assert await pool.fetchval("SELECT count(*) FROM procedures") == 0


async def test_a_credential_in_a_step_is_refused_and_nothing_is_stored(
    api: Api, pool: asyncpg.Pool
) -> None:
    secret = "AKIA" + "QZ7RT2MX9BWK4JHN"
    given = {"triggerPattern": "t", "description": "d", "steps": [step(key=f"id {secret}")]}
    result = (await api.as_(key("acme"))(SAVE, input=given))["saveProcedure"]
    assert result["__typename"] == "SensitiveContentError"
    assert result["findings"] == [{"kind": "aws_access_key_id"}]
    assert await pool.fetchval("SELECT count(*) FROM procedures") == 0


async def test_another_client_sees_nothing_and_cannot_record_a_run(api: Api) -> None:
    acme = api.as_(key("acme"))
    procedure_id = await save(acme, "deploy the web app", "Build and roll out the web app.")
    for reader in (key("beta"), key("beta", Role.UI), key("beta", project="web")):
        other = api.as_(reader)
        assert await found(other, trigger="deploy the web app") == []
        assert await found(other, text="build and roll out the web app") == []
    refused = await run(api.as_(key("beta")), procedure_id, True)
    assert (refused["__typename"], refused["field"]) == ("NotFoundError", "id")
    [match] = await found(acme, trigger="deploy the web app")
    assert match["procedure"]["usageCount"] == 0


async def test_keys_of_the_client_read_and_only_writing_keys_record(api: Api) -> None:
    procedure_id = await save(api.as_(key("acme")), "deploy", "Roll out.")
    for reader in (key("acme", Role.UI), key("acme", project="web")):
        assert [m["procedure"]["id"] for m in await found(api.as_(reader), trigger="deploy")] == [
            procedure_id
        ]
    refused = await run(api.as_(key("acme", Role.UI)), procedure_id, True)
    assert refused["__typename"] == "ScopeError"
    # A global key reads a client's procedures only by naming the client.
    assert await found(api, trigger="deploy") == []
    named = await found(api, trigger="deploy", scope={"clientId": "acme"})
    assert [m["procedure"]["id"] for m in named] == [procedure_id]


async def test_a_query_without_trigger_or_query_is_refused(api: Api) -> None:
    result = await api.as_(key("acme")).execute(FIND)
    assert result.errors is not None
    assert "give a triggerPattern or a query" in result.errors[0].message


async def test_project_and_group_keys_read_procedures_but_do_not_change_them(api: Api) -> None:
    procedure_id = await save(api.as_(key("acme")), "deploy", "Roll out.")
    group = Principal("acme-g1-agent", Scope("acme", "", "g1"), Role.AGENT)
    for writer in (api.as_(key("acme", project="web")), api.as_(group)):
        mine = {"triggerPattern": "deploy", "description": "Mine.", "source": "USER_DEFINED",
                "steps": [step()]}  # fmt: skip
        refused = await writer(SAVE, input=mine)
        assert (refused["saveProcedure"]["__typename"], refused["saveProcedure"]["field"]) == (
            "ScopeError",
            "scope",
        )
        counted = await run(writer, procedure_id, False)
        assert counted["__typename"] == "ScopeError"
        assert [m["procedure"]["id"] for m in await found(writer, trigger="deploy")] == [
            procedure_id
        ]
    [match] = await found(api.as_(key("acme")), trigger="deploy")
    assert match["procedure"]["usageCount"] == 0

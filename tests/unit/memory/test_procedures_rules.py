"""Procedural memory's rules: checking a procedure, the ranking formula, the use cases."""

from __future__ import annotations

import random
import string
from datetime import timedelta

import pytest

from kenning.domain.errors import NotFoundError, TooLargeError, ValidationError
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.memory.procedures import (
    HALF_LIFE_DAYS,
    MAX_STEPS,
    ProcedureMatch,
    ProcedureSource,
    ProcedureStep,
    check_draft,
    find_procedures,
    learned_score,
    rank,
    record_procedure_run,
    save_procedure,
)
from kenning.domain.priorities import QUERY_PRIORITY
from tests.fakes.embedder import FakeEmbedder
from tests.support.memory_procedures import T0, FakeProcedureStore, draft, procedure

LEARNED = ProcedureSource.LEARNED
USER = ProcedureSource.USER_DEFINED
# A GitHub token's shape, generated (a written-out one would read as a placeholder).
TOKEN = "ghp_" + "".join(random.Random(12).choices(string.ascii_letters + string.digits, k=36))


def test_learned_score_is_the_stated_formula() -> None:
    ran = procedure(runs=3, successes=2, last_used=T0)
    assert learned_score(1.0, ran, T0 + timedelta(days=30)) == pytest.approx(1 * 3 / 5 * 0.5)
    assert learned_score(0.8, ran, T0) == pytest.approx(0.8 * 3 / 5)
    later = T0 + timedelta(days=2 * HALF_LIFE_DAYS)
    assert learned_score(1.0, ran, later) == pytest.approx(3 / 5 * 0.25)


def test_an_untried_procedure_starts_at_one_half_and_decays_from_its_creation() -> None:
    fresh = procedure(created_at=T0)
    assert learned_score(1.0, fresh, T0) == pytest.approx(0.5)
    assert learned_score(1.0, fresh, T0 + timedelta(days=HALF_LIFE_DAYS)) == pytest.approx(0.25)


def test_one_lucky_run_does_not_beat_a_long_good_record() -> None:
    lucky = procedure(runs=1, successes=1, last_used=T0)
    proven = procedure(runs=100, successes=95, last_used=T0)
    assert learned_score(1.0, proven, T0) > learned_score(1.0, lucky, T0)


def test_a_last_use_in_the_future_counts_as_now() -> None:
    ran = procedure(runs=2, successes=2, last_used=T0 + timedelta(days=1))
    assert learned_score(1.0, ran, T0) == pytest.approx(3 / 4)


def test_user_defined_come_first_whatever_the_learned_scores() -> None:
    weak_user = procedure(USER, id="u")
    strong_learned = procedure(runs=50, successes=50, last_used=T0, id="l")
    ranked = rank(
        [ProcedureMatch(strong_learned, True, 1.0), ProcedureMatch(weak_user, False, 0.41)],
        T0,
        10,
    )
    assert [m.procedure.id for m in ranked] == ["u", "l"]
    assert ranked[0].score == pytest.approx(0.41)


def test_learned_are_ranked_by_success_and_recency_then_cut_at_the_limit() -> None:
    failing = procedure(runs=10, successes=1, last_used=T0, id="failing")
    stale = procedure(runs=10, successes=10, last_used=T0 - timedelta(days=365), id="stale")
    good = procedure(runs=10, successes=9, last_used=T0, id="good")
    found = [ProcedureMatch(p, True, None) for p in (failing, stale, good)]
    assert [m.procedure.id for m in rank(found, T0, 10)] == ["good", "failing", "stale"]
    assert [m.procedure.id for m in rank(found, T0, 1)] == ["good"]


def test_an_exact_match_counts_fully_a_similar_one_by_its_similarity() -> None:
    same = procedure(runs=4, successes=4, last_used=T0, id="a")
    ranked = rank([ProcedureMatch(same, False, 0.5), ProcedureMatch(same, True, 0.2)], T0, 5)
    assert [m.exact for m in ranked] == [True, False]
    assert ranked[1].score == pytest.approx(0.5 * 5 / 6)


def test_check_draft_normalizes_the_trigger_and_trims_names() -> None:
    steps = [ProcedureStep(" coder ", " run ", {"n": 1})]
    checked = check_draft(draft("  Deploy \n the   app ", " Ship it. ", steps=steps))
    assert checked.trigger_pattern == "Deploy the app"
    assert checked.description == "Ship it."
    assert checked.steps == (ProcedureStep("coder", "run", {"n": 1}),)


@pytest.mark.parametrize(
    ("bad", "field", "error"),
    [
        (draft(trigger="  "), "triggerPattern", ValidationError),
        (draft(trigger="x" * 501), "triggerPattern", TooLargeError),
        (draft(description=""), "description", ValidationError),
        (draft(description="x" * 4001), "description", TooLargeError),
        (draft(steps=[]), "steps", ValidationError),
        (draft(steps=[ProcedureStep("a", "b", {})] * (MAX_STEPS + 1)), "steps", TooLargeError),
        (draft(steps=[ProcedureStep("", "b", {})]), "steps[0].agent", ValidationError),
        (draft(steps=[ProcedureStep("a", "line\nbreak", {})]), "steps[0].action", ValidationError),
        (
            draft(steps=[ProcedureStep("a", "b", ["not", "an", "object"])]),  # type: ignore[arg-type]
            "steps[0].parameters",
            ValidationError,
        ),
        (
            draft(steps=[ProcedureStep("a", "b", {"x": float("nan")})]),
            "steps[0].parameters",
            ValidationError,
        ),
        (
            draft(steps=[ProcedureStep("a", "b", {"x": "y" * 16_001})]),
            "steps[0].parameters",
            TooLargeError,
        ),
    ],
)
def test_check_draft_names_the_field_that_is_wrong(
    bad: object, field: str, error: type[ValidationError]
) -> None:
    with pytest.raises(error) as raised:
        check_draft(bad)  # type: ignore[arg-type]
    assert raised.value.field == field


def test_the_bad_step_is_named_in_the_message() -> None:
    steps = [ProcedureStep("a", "b", {}), ProcedureStep("a", "", {})]
    with pytest.raises(ValidationError, match=r"steps\[1\]\.action"):
        check_draft(draft(steps=steps))


@pytest.mark.parametrize(
    "holder",
    [
        draft(trigger=f"push with {TOKEN}"),
        draft(description=f"Use token {TOKEN} to push."),
        draft(steps=[ProcedureStep("git", "push", {"auth": {"header": f"token {TOKEN}"}})]),
    ],
)
def test_a_credential_anywhere_is_refused(holder: object) -> None:
    with pytest.raises(SensitiveContentError):
        check_draft(holder)  # type: ignore[arg-type]


async def test_save_embeds_trigger_and_description_at_interactive_priority() -> None:
    store, embedder = FakeProcedureStore(), FakeEmbedder(dimension=3)
    saved = await save_procedure(
        "acme", draft("deploy", "Roll out."), "key-1", store=store, embedder=embedder
    )
    assert embedder.calls == [(["deploy\n\nRoll out."], QUERY_PRIORITY)]
    assert (saved.client_id, saved.created_by, saved.trigger_pattern) == ("acme", "key-1", "deploy")
    assert list(store.rows) == [saved.id]


async def test_save_stores_nothing_for_a_bad_draft_or_no_client() -> None:
    store, embedder = FakeProcedureStore(), FakeEmbedder(dimension=3)
    with pytest.raises(ValidationError):
        await save_procedure("acme", draft(steps=[]), "k", store=store, embedder=embedder)
    with pytest.raises(ValidationError) as raised:
        await save_procedure("", draft(), "k", store=store, embedder=embedder)
    assert raised.value.field == "clientId"
    assert store.rows == {} and embedder.calls == []


async def test_find_embeds_the_query_or_else_the_trigger() -> None:
    store, embedder = FakeProcedureStore(), FakeEmbedder(dimension=3)
    await find_procedures("acme", "deploy", "ship it", 5, T0, store=store, embedder=embedder)
    await find_procedures("acme", " deploy  now ", None, 5, T0, store=store, embedder=embedder)
    assert embedder.calls == [(["ship it"], QUERY_PRIORITY), (["deploy now"], QUERY_PRIORITY)]


@pytest.mark.parametrize(
    ("trigger", "query", "limit", "field"),
    [
        (None, None, 5, "triggerPattern"),
        (" ", "  ", 5, "triggerPattern"),
        ("x" * 501, None, 5, "triggerPattern"),
        (None, "q" * 4001, 5, "query"),
        ("deploy", None, 0, "limit"),
        ("deploy", None, 51, "limit"),
    ],
)
async def test_find_refuses_bad_arguments(
    trigger: str | None, query: str | None, limit: int, field: str
) -> None:
    store, embedder = FakeProcedureStore(), FakeEmbedder(dimension=3)
    with pytest.raises(ValidationError) as raised:
        await find_procedures("acme", trigger, query, limit, T0, store=store, embedder=embedder)
    assert raised.value.field == field


async def test_find_without_a_client_finds_nothing_and_embeds_nothing() -> None:
    store, embedder = FakeProcedureStore(), FakeEmbedder(dimension=3)
    await save_procedure("acme", draft("deploy"), "k", store=store, embedder=embedder)
    assert await find_procedures("", "deploy", None, 5, T0, store=store, embedder=embedder) == []
    assert len(embedder.calls) == 1


async def test_a_run_of_another_clients_procedure_is_not_found() -> None:
    store, embedder = FakeProcedureStore(), FakeEmbedder(dimension=3)
    saved = await save_procedure("acme", draft(), "k", store=store, embedder=embedder)
    with pytest.raises(NotFoundError) as raised:
        await record_procedure_run("other", saved.id, True, store=store)
    assert raised.value.field == "id"
    assert store.rows[saved.id][0].usage_count == 0
    ran = await record_procedure_run("acme", saved.id, False, store=store)
    assert (ran.usage_count, ran.success_rate) == (1, 0.0)

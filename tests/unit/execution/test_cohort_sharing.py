"""The executor's cohort hook: an event runs once for its whole cohort, through the results of
the app whose context carries them; results with errors, and failed executions, are never
shared; a caller outside an app's context, or without a principal, shares nothing."""

from __future__ import annotations

import asyncio
import inspect
from typing import cast

import pytest
from graphql import ExecutionResult, GraphQLError, OperationDefinitionNode, parse

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.graphql.context import Context
from kenning.graphql.subscriptions.cohorts import CohortSharing
from kenning.graphql.subscriptions.sharing import SharedResults, SubscriptionFanOut
from kenning.runtime import Runtime

DOCUMENT = parse("subscription S { queueStatus { degraded } }")
OPERATION = cast(OperationDefinitionNode, DOCUMENT.definitions[0])


class Runs:
    """An execution of the event, counted; its result has ``errors`` when told."""

    def __init__(self, errors: bool = False) -> None:
        self.count, self.errors = 0, errors

    def __call__(self) -> ExecutionResult:
        self.count += 1
        return ExecutionResult({"n": self.count}, [GraphQLError("x")] if self.errors else None)


def sharing() -> CohortSharing:
    return CohortSharing(("schema", "cohort"), SharedResults())


def caller(fan_out: SubscriptionFanOut | None, principal: bool = True) -> Context:
    who = Principal("k", Scope("acme"), Role.AGENT) if principal else None
    return Context(runtime=cast(Runtime, object()), principal=who, fan_out=fan_out)


def test_an_event_runs_once_for_the_whole_cohort() -> None:
    share, runs, event = sharing(), Runs(), object()
    first = share.execute(event, runs, inspect.isawaitable)
    assert share.execute(event, runs, inspect.isawaitable) is first
    assert share.shared(event) is first
    assert runs.count == 1
    assert share.execute(object(), runs, inspect.isawaitable) is not first  # another event
    assert runs.count == 2


def test_a_result_with_errors_runs_again_for_each_member() -> None:
    share, runs, event = sharing(), Runs(errors=True), object()
    share.execute(event, runs, inspect.isawaitable)
    share.execute(event, runs, inspect.isawaitable)
    assert runs.count == 2
    assert share.shared(event) is None


async def test_an_awaited_result_is_shared_and_a_failed_one_forgotten() -> None:
    share, event = sharing(), object()
    runs: list[str] = []

    async def ok() -> ExecutionResult:
        runs.append("ok")
        return ExecutionResult({"ok": True})

    async def fails() -> ExecutionResult:
        runs.append("fails")
        raise RuntimeError("boom")

    first = share.execute(event, ok, inspect.isawaitable)
    second = share.execute(event, fails, inspect.isawaitable)  # a member while in flight
    assert (await first) is (await second)
    assert runs == ["ok"]
    other = object()
    with pytest.raises(RuntimeError):
        await share.execute(other, fails, inspect.isawaitable)
    await asyncio.sleep(0)  # the done callback has run
    assert share.shared(other) is None
    assert (await share.execute(other, ok, inspect.isawaitable)).data == {"ok": True}


def test_only_a_caller_in_an_apps_context_shares() -> None:
    fan_out, schema = SubscriptionFanOut(), object()
    share = CohortSharing.of(schema, DOCUMENT, OPERATION, None, caller(fan_out))
    assert share is not None and share.results is fan_out.shared_results
    assert CohortSharing.of(schema, DOCUMENT, OPERATION, None, caller(None)) is None
    assert CohortSharing.of(schema, DOCUMENT, OPERATION, None, caller(fan_out, False)) is None
    assert CohortSharing.of(schema, DOCUMENT, OPERATION, None, object()) is None


def test_another_schema_is_another_cohort() -> None:
    fan_out, schema, other = SubscriptionFanOut(), object(), object()

    def cohort(of: object) -> object:
        share = CohortSharing.of(of, DOCUMENT, OPERATION, None, caller(fan_out))
        assert share is not None
        return share.cohort

    assert cohort(schema) == cohort(schema) != cohort(other)

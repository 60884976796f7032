"""queueStatus cohorts: subscribers with the same selection and visibility share one execution
per change; other scopes and other selections never share; every member gets every change.
Over real websockets: test_cohort_frames.py."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import strawberry
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.types import ExecutionResult

from kenning.domain.access.principal import Principal
from kenning.graphql.context import Context
from kenning.graphql.execution.executor import KenningExecutor
from kenning.graphql.subscriptions.sharing import SubscriptionFanOut
from kenning.runtime import Runtime
from kenning.schema.build import build_schema
from tests.support.graphql_api import Api
from tests.support.queue_api import agent, request

pytestmark = pytest.mark.integration

CHANGES = "subscription { queueStatus(first: 5) { changes { jobId status } } }"
WITH_COUNTS = "subscription { queueStatus(first: 5) { counts { status count } changes { jobId } } }"


@pytest.fixture
def executions(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The event of every real execution of a subscription event, in order."""
    seen: list[object] = []
    # What the executor's cohort hook runs when no member executed the event yet.
    real = StrawberryGraphQLCoreExecutionContext.execute_operation

    def counted(self: StrawberryGraphQLCoreExecutionContext, serially: bool | None = None) -> Any:
        if isinstance(self, KenningExecutor) and self.event is not None:
            seen.append(self.event)
        return real(self, serially)

    monkeypatch.setattr(StrawberryGraphQLCoreExecutionContext, "execute_operation", counted)
    return seen


@dataclass
class Served:
    """A schema and the fan-out its subscribers share, as ``create_app`` wires them (the
    view puts the fan-out in every context)."""

    schema: strawberry.Schema = field(default_factory=build_schema)
    fan_out: SubscriptionFanOut = field(default_factory=SubscriptionFanOut)


@pytest.fixture
def schema() -> Served:
    return Served()


async def results(
    served: Served, runtime: Runtime, caller: Principal, query: str
) -> AsyncGenerator[ExecutionResult, None]:
    context = Context(runtime=runtime, principal=caller, fan_out=served.fan_out)
    stream = await served.schema.subscribe(query, context_value=context)
    assert not isinstance(stream, ExecutionResult), stream.errors
    async with contextlib.aclosing(stream):
        async for result in stream:
            assert result.errors is None, result.errors
            yield result


async def next_with_changes(stream: AsyncIterator[ExecutionResult]) -> ExecutionResult:
    for _ in range(10):
        result = await asyncio.wait_for(anext(stream), 10)
        assert result.data is not None
        if result.data["queueStatus"]["changes"]:
            return result
    raise AssertionError("no change arrived")


def job_ids(result: ExecutionResult) -> list[str]:
    assert result.data is not None
    return [c["jobId"] for c in result.data["queueStatus"]["changes"]]


async def test_same_selection_and_scope_share_one_execution(
    qruntime: Runtime, schema: Served, executions: list[object]
) -> None:
    # Two different keys of the same client and role: the same visibility.
    one = results(schema, qruntime, agent("acme"), CHANGES)
    other_key = Principal("acme-other-key", agent("acme").scope, agent("acme").role)
    two = results(schema, qruntime, other_key, CHANGES)
    await anext(one)  # each one's first snapshot is its own
    await anext(two)
    before = len(executions)
    handle = await request(Api(qruntime, agent("acme")), "urn:shared")
    first, second = await next_with_changes(one), await next_with_changes(two)
    assert job_ids(first) == job_ids(second) == [handle["jobId"]]
    assert first.data is second.data  # one result, handed to both
    assert len(executions) - before == 1
    await one.aclose()
    await two.aclose()


async def test_another_scope_never_shares_nor_sees(
    qruntime: Runtime, schema: Served, executions: list[object]
) -> None:
    acme = results(schema, qruntime, agent("acme"), CHANGES)
    globex = results(schema, qruntime, agent("globex"), CHANGES)
    await anext(acme)
    await anext(globex)
    mine = await request(Api(qruntime, agent("acme")), "urn:acme-only")
    theirs = await request(Api(qruntime, agent("globex")), "urn:globex-only")
    seen_by_acme = await next_with_changes(acme)
    seen_by_globex = await next_with_changes(globex)
    assert job_ids(seen_by_acme) == [mine["jobId"]]
    assert job_ids(seen_by_globex) == [theirs["jobId"]]
    assert seen_by_acme.data is not seen_by_globex.data
    await acme.aclose()
    await globex.aclose()


async def test_another_selection_is_executed_for_itself(
    qruntime: Runtime, schema: Served, executions: list[object]
) -> None:
    plain = results(schema, qruntime, agent("acme"), CHANGES)
    counted = results(schema, qruntime, agent("acme"), WITH_COUNTS)
    await anext(plain)
    await anext(counted)
    before = len(executions)
    handle = await request(Api(qruntime, agent("acme")), "urn:two-selections")
    one, other = await next_with_changes(plain), await next_with_changes(counted)
    assert one.data is not None and other.data is not None
    assert "counts" not in one.data["queueStatus"] and other.data["queueStatus"]["counts"]
    assert job_ids(one) == job_ids(other) == [handle["jobId"]]
    # The same update object, executed once per selection.
    assert len(executions) - before == 2 and executions[-1] is executions[-2]
    await plain.aclose()
    await counted.aclose()


async def test_every_member_gets_every_change_and_a_laggard_its_own_merge(
    qruntime: Runtime, schema: Served, executions: list[object]
) -> None:
    members = [results(schema, qruntime, agent("acme"), CHANGES) for _ in range(5)]
    laggard = results(schema, qruntime, agent("acme"), CHANGES)
    for stream in [*members, laggard]:
        await anext(stream)
    acme = Api(qruntime, agent("acme"))
    expected = []
    before = len(executions)
    for n in range(3):
        expected.append((await request(acme, f"urn:every-{n}"))["jobId"])
        received = [await next_with_changes(m) for m in members]
        assert all(job_ids(r) == [expected[-1]] for r in received)
        assert all(r.data is received[0].data for r in received)
    assert len(executions) - before == 3  # one per change, for five members
    # The laggard read nothing meanwhile: it gets every change it missed, merged.
    missed: list[str] = []
    while len(missed) < 3:
        missed += job_ids(await next_with_changes(laggard))
    assert missed == expected
    for stream in [*members, laggard]:
        await stream.aclose()

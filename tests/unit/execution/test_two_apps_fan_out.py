"""Two apps built in one process share no subscription cache: each app's view owns its own
fan-out, encodes shared data into its own cache, and an event's result is shared only among
the subscribers whose contexts carry the same app's fan-out."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from types import SimpleNamespace
from typing import cast

import strawberry
from starlette.applications import Starlette
from starlette.routing import WebSocketRoute
from strawberry.types import ExecutionResult

from kenning.app import create_app
from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.graphql.context import Context
from kenning.graphql.execution.executor import KenningExecutor
from kenning.graphql.subscriptions.sharing import SubscriptionFanOut
from kenning.graphql.view import CohortGraphQL
from kenning.runtime import Runtime
from kenning.settings import EmbedderKind, Settings


@strawberry.type
class Tick:
    n: int


TICK = Tick(n=1)  # the very same event object for every subscriber, as the queue feed does


@strawberry.type
class Query:
    ok: bool = True


@strawberry.type
class Subscription:
    @strawberry.subscription
    async def tick(self) -> AsyncGenerator[Tick, None]:
        yield TICK


def view_of(app: Starlette) -> CohortGraphQL:
    [view] = [
        route.endpoint
        for route in app.routes
        if isinstance(route, WebSocketRoute) and route.path == "/graphql"
    ]
    assert isinstance(view, CohortGraphQL)
    return view


def test_each_app_encodes_shared_data_in_its_own_cache() -> None:
    one, two = (view_of(create_app(Settings(embedder=EmbedderKind.HASH))) for _ in range(2))
    message = {"id": "1", "type": "next", "payload": {"data": {"tick": {"n": 1}}}}

    def encodings() -> tuple[int, int]:
        return one.fan_out.encoded_payloads.encodings, two.fan_out.encoded_payloads.encodings

    one.encode_json(message)
    one.encode_json(message)
    assert encodings() == (1, 0)
    two.encode_json(message)
    two.encode_json(message)
    assert encodings() == (1, 1)


async def first_result(schema: strawberry.Schema, fan_out: SubscriptionFanOut) -> ExecutionResult:
    caller = Principal("k", Scope("acme"), Role.AGENT)
    runtime = cast(Runtime, SimpleNamespace(api_keys=SimpleNamespace(is_revoked=lambda _: False)))
    context = Context(runtime=runtime, principal=caller, fan_out=fan_out)
    stream = await schema.subscribe("subscription { tick { n } }", context_value=context)
    assert not isinstance(stream, ExecutionResult)
    result = await anext(stream)
    await stream.aclose()
    assert isinstance(result, ExecutionResult) and result.errors is None
    return result


async def test_an_event_is_shared_within_an_app_never_across_apps() -> None:
    # One schema for both, so nothing but the fan-out can keep the apps apart.
    schema = strawberry.Schema(
        query=Query, subscription=Subscription, execution_context_class=KenningExecutor
    )
    one, two = SubscriptionFanOut(), SubscriptionFanOut()
    a, b = await first_result(schema, one), await first_result(schema, one)
    c, d = await first_result(schema, two), await first_result(schema, two)
    assert a.data == c.data == {"tick": {"n": 1}}
    assert a.data is b.data and c.data is d.data
    assert a.data is not c.data
    for fan_out in (one, two):
        assert fan_out.shared_results.executions == 1
        assert fan_out.shared_results.shared == 1

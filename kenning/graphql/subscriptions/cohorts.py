"""Subscription cohorts: one execution per event for every subscriber who would get the same.

Subscribers whose operation has the same document, operation name and variables, and whose
callers have the same visibility (read scope and role, not the key), form a cohort, as
Hasura groups live queries. When the subscription's source yields the very same object to
several members (the queue status feed shares one update object with every subscriber of
a scope who keeps up), its selection set is executed once and every member receives that
one result; ``CohortGraphQL`` then encodes its ``data`` to JSON once for every socket.

A member that lags or joins late receives an object of its own (the feed merges what it
missed, or hands it the latest snapshot), which is executed for it alone, so sharing
never changes what anyone receives. Results with errors are never shared.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable, Mapping
from typing import Any, cast

import strawberry
from graphql import DocumentNode, ExecutionResult, GraphQLError, OperationType, print_ast
from graphql.execution import Executor

from kenning.graphql.context import Context
from kenning.graphql.execution.executor import CheckedExecutor

# Recent events' results; an entry keeps its event alive, so an id cannot be reused while
# it is cached. A change reaches all members within moments, so a few dozen suffice.
SHARED_KEPT = 256

SUBSCRIPTION = OperationType.SUBSCRIPTION
_Result = ExecutionResult | Awaitable[ExecutionResult]

# Told of each subscription's executor as it is built, in the operation's own task: how a
# websocket handler's member (``fan_out.py``) later runs events without Strawberry's loop.
subscription_built: contextvars.ContextVar[Callable[[CohortExecutor], None] | None] = (
    contextvars.ContextVar("kenning_subscription_built", default=None)
)


def cohort_key(
    document: DocumentNode,
    operation_name: str | None,
    variables: Mapping[str, Any] | None,
    context: object,
) -> Hashable | None:
    """What members of one cohort share; ``None`` for a caller that cannot share.

    Example: two keys of client ``acme`` with the same role and the same subscription
    text get equal keys; a key of ``globex`` never does.
    """
    if not isinstance(context, Context) or context.principal is None:
        return None
    caller = context.principal
    source = document.loc.source.body if document.loc is not None else print_ast(document)
    try:
        values = json.dumps(variables or {}, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        return None
    return (source, operation_name, values, caller.reading(None), caller.role)


class SharedResults:
    """The results of recent events by (cohort, event), bounded, oldest dropped first."""

    def __init__(self, kept: int = SHARED_KEPT) -> None:
        self._kept = kept
        self._recent: OrderedDict[tuple[Hashable, int], tuple[object, _Result]] = OrderedDict()
        self.executions = 0
        self.shared = 0

    def get(self, cohort: Hashable, event: object) -> _Result | None:
        hit = self._recent.get((cohort, id(event)))
        if hit is None or hit[0] is not event:
            return None
        self.shared += 1
        return hit[1]

    def put(self, cohort: Hashable, event: object, result: _Result) -> None:
        self.executions += 1
        self._recent[(cohort, id(event))] = (event, result)
        if len(self._recent) > self._kept:
            self._recent.popitem(last=False)

    def forget(self, cohort: Hashable, event: object) -> None:
        hit = self._recent.get((cohort, id(event)))
        if hit is not None and hit[0] is event:
            del self._recent[(cohort, id(event))]


shared_results = SharedResults()


class CohortExecutor(CheckedExecutor):
    """``CheckedExecutor`` that executes a subscription event once per cohort."""

    cohort: Hashable | None = None
    event: object = None  # the source's event, on a per-event executor

    @classmethod
    def build(
        cls,
        schema: Any,
        document: DocumentNode,
        root_value: Any = None,
        context_value: Any = None,
        raw_variable_values: dict[str, Any] | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> list[GraphQLError] | Executor[Any]:
        built = super().build(
            schema, document, root_value, context_value, raw_variable_values, *args, **kwargs
        )
        if isinstance(built, CohortExecutor) and built.operation.operation is SUBSCRIPTION:
            name = built.operation.name.value if built.operation.name else None
            key = cohort_key(document, name, raw_variable_values, context_value)
            built.cohort = None if key is None else (id(schema), key)
            told = subscription_built.get()
            if told is not None:
                told(built)
        return built

    def build_per_event_executor(self, payload: Any) -> Executor[Any]:
        executor = super().build_per_event_executor(payload)
        assert isinstance(executor, CohortExecutor)
        executor.event = payload
        return executor

    def execute_operation(self, serially: bool | None = None) -> Any:
        cohort, event = self.cohort, self.event
        if cohort is None or event is None:
            return super().execute_operation(serially)
        hit = shared_results.get(cohort, event)
        if hit is not None:
            return _await(hit) if isinstance(hit, asyncio.Future) else hit
        result = super().execute_operation(serially)
        if isinstance(result, ExecutionResult):
            if not result.errors:
                shared_results.put(cohort, event, result)
            return result
        if not self.is_awaitable(result):
            return result  # incremental delivery, which subscriptions never use
        future = asyncio.ensure_future(cast("Awaitable[ExecutionResult]", result))
        shared_results.put(cohort, event, future)
        future.add_done_callback(lambda done: _unshare_failed(done, cohort, event))
        return _await(future)


def _unshare_failed(done: asyncio.Future[Any], cohort: Hashable, event: object) -> None:
    if done.cancelled() or done.exception() is not None or done.result().errors:
        shared_results.forget(cohort, event)


def with_cohorts(schema: strawberry.Schema) -> strawberry.Schema:
    """``schema``, executing each subscription event once per cohort."""
    schema.execution_context_class = CohortExecutor
    return schema


async def _await(shared: Awaitable[ExecutionResult]) -> ExecutionResult:
    # shield: one member's websocket closing must not cancel the others' execution.
    return await asyncio.shield(shared)

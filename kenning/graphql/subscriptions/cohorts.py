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

``CohortSharing`` is the executor's hook (``execution/executor.py``); the results it shares
are the app's (``sharing.py``), reached through the request's context.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any, cast

from graphql import DocumentNode, ExecutionResult, OperationDefinitionNode, print_ast

from kenning.graphql.context import Context
from kenning.graphql.subscriptions.sharing import SharedResult, SharedResults


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


@dataclass(frozen=True, slots=True)
class CohortSharing:
    """One subscription's cohort, and the app's results its events are shared through."""

    cohort: Hashable
    results: SharedResults

    @classmethod
    def of(
        cls,
        schema: object,
        document: DocumentNode,
        operation: OperationDefinitionNode,
        variables: Mapping[str, Any] | None,
        context: object,
    ) -> CohortSharing | None:
        """The sharing of a subscription just built; None when its caller cannot share or
        its context carries no app's fan-out (a schema run outside the view)."""
        fan_out = context.fan_out if isinstance(context, Context) else None
        if fan_out is None:
            return None
        name = operation.name.value if operation.name else None
        key = cohort_key(document, name, variables, context)
        return None if key is None else cls((id(schema), key), fan_out.shared_results)

    def shared(self, event: object) -> SharedResult | None:
        """The cohort's result for ``event`` when some member executed it already."""
        return self.results.get(self.cohort, event)

    def execute(
        self,
        event: object,
        execute: Callable[[], Any],
        is_awaitable: Callable[[Any], bool],
    ) -> Any:
        """``execute()``'s result for ``event``, run once for the whole cohort."""
        cohort, results = self.cohort, self.results
        hit = results.get(cohort, event)
        if hit is not None:
            return _await(hit) if isinstance(hit, asyncio.Future) else hit
        result = execute()
        if isinstance(result, ExecutionResult):
            if not result.errors:
                results.put(cohort, event, result)
            return result
        if not is_awaitable(result):
            return result  # incremental delivery, which subscriptions never use
        future = asyncio.ensure_future(cast("Awaitable[ExecutionResult]", result))
        results.put(cohort, event, future)
        future.add_done_callback(lambda done: _unshare_failed(done, results, cohort, event))
        return _await(future)


def _unshare_failed(
    done: asyncio.Future[Any], results: SharedResults, cohort: Hashable, event: object
) -> None:
    if done.cancelled() or done.exception() is not None or done.result().errors:
        results.forget(cohort, event)


async def _await(shared: Awaitable[ExecutionResult]) -> ExecutionResult:
    # shield: one member's websocket closing must not cancel the others' execution.
    return await asyncio.shield(shared)

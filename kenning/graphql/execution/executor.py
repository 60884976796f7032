"""The executor every operation runs with, its behaviour composed of named hooks.

graphql-core builds it once per operation, after validation, for queries, mutations and
subscriptions alike (a websocket's new subscriptions included), and copies it for each event
of a subscription. ``build_schema`` builds the schema with it. Its hooks, in the order they
run:

- ``request_refusals`` (``request_checks.py``): a revoked key or unstorable text refuses the
  operation before any resolver;
- ``CohortSharing.of`` (``subscriptions/cohorts.py``): a subscription's cohort, when its
  context carries the app's fan-out, and ``subscription_built`` told of it;
- ``PlannedFields`` (``planned_fields.py``): plain fields completed directly;
- ``CohortSharing.execute``: each event executed once for its whole cohort.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

from graphql import DocumentNode, GraphQLError, GraphQLObjectType, OperationType
from graphql.execution import Executor
from graphql.pyutils import Path
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from kenning.graphql.execution.planned_fields import PlannedFields
from kenning.graphql.execution.request_checks import request_refusals
from kenning.graphql.subscriptions.cohorts import CohortSharing

SUBSCRIPTION = OperationType.SUBSCRIPTION

# Told of each subscription's executor as it is built, in the operation's own task (how
# ``fan_out.py``'s member runs events itself).
# Not a callback in the context: Strawberry hands every operation of a websocket one context.
subscription_built: contextvars.ContextVar[Callable[[KenningExecutor], None] | None] = (
    contextvars.ContextVar("kenning_subscription_built", default=None)
)


class KenningExecutor(StrawberryGraphQLCoreExecutionContext):
    """Strawberry's executor with Kenning's hooks (see the module docstring)."""

    sharing: CohortSharing | None = None  # a subscription's, when its caller may share
    event: object = None  # the source's event, on a per-event executor

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.planned_fields = PlannedFields.of(self)

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
        refusals = request_refusals(context_value, document, raw_variable_values)
        if refusals:
            return refusals
        built = super().build(
            schema, document, root_value, context_value, raw_variable_values, *args, **kwargs
        )
        if isinstance(built, KenningExecutor) and built.operation.operation is SUBSCRIPTION:
            built.sharing = CohortSharing.of(
                schema, document, built.operation, raw_variable_values, context_value
            )
            told = subscription_built.get()
            if told is not None:
                told(built)
        return built

    def build_per_event_executor(self, payload: Any) -> Executor[Any]:
        # A copy of this executor: its hooks, and the operation's plans, come along.
        executor = super().build_per_event_executor(payload)
        assert isinstance(executor, KenningExecutor)
        executor.event = payload
        return executor

    def execute_operation(self, serially: bool | None = None) -> Any:
        sharing, event = self.sharing, self.event
        if sharing is None or event is None:
            return super().execute_operation(serially)
        run = super().execute_operation
        return sharing.execute(event, lambda: run(serially), self.is_awaitable)

    def execute_fields(
        self,
        parent_type: GraphQLObjectType,
        source_value: Any,
        path: Path | None,
        grouped_field_set: Any,
        position_context: Any,
    ) -> Any:
        planned = self.planned_fields
        if (
            planned is not None
            and (plan := planned.plan(parent_type, grouped_field_set)) is not None
        ):
            return planned.execute(self, parent_type, source_value, path, plan, position_context)
        return super().execute_fields(
            parent_type, source_value, path, grouped_field_set, position_context
        )

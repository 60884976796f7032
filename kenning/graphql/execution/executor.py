"""The executor every operation runs with: last checks before any resolver.

graphql-core builds it once per operation, after validation, for queries, mutations and
subscriptions alike (a websocket's new subscriptions included), which makes it the one
place for checks of the request itself rather than of the document.
"""

from __future__ import annotations

from typing import Any

from graphql import DocumentNode, GraphQLError
from graphql.execution import Executor

from kenning.domain.errors import ScopeError
from kenning.graphql.context import Context
from kenning.graphql.execution.planned_fields import PlannedFieldsExecutor
from kenning.graphql.execution.storable_input import literal_errors, variable_errors


def _revoked(context: object) -> list[GraphQLError]:
    # A websocket keeps the principal it authenticated with; its key may have been
    # revoked since (the socket is being closed, but a message may arrive first).
    if not isinstance(context, Context) or context.principal is None:
        return []
    if not context.runtime.api_keys.is_revoked(context.principal.key_id):
        return []
    refusal = ScopeError("this API key was revoked")
    return [GraphQLError(refusal.message, original_error=refusal)]


class CheckedExecutor(PlannedFieldsExecutor):
    """Strawberry's executor, refusing a revoked key and unstorable text first, then
    completing plain fields directly (``planned_fields``)."""

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
        errors = _revoked(context_value) or literal_errors(document) + variable_errors(
            raw_variable_values
        )
        if errors:
            return errors
        return super().build(
            schema, document, root_value, context_value, raw_variable_values, *args, **kwargs
        )

"""The executor's first hook: checks of the request itself, before any resolver runs.

graphql-core builds the executor once per operation, after validation, for queries,
mutations and subscriptions alike (a websocket's new subscriptions included), which makes
its build the one place for checks of the request rather than of the document: a key
revoked since its websocket authenticated, and text PostgreSQL cannot store
(``storable_input.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphql import DocumentNode, GraphQLError

from kenning.domain.errors import ScopeError
from kenning.graphql.context import Context
from kenning.graphql.execution.storable_input import literal_errors, variable_errors


def revoked_key(context: object) -> list[GraphQLError]:
    """A FORBIDDEN error when the caller's key was revoked since it authenticated."""
    # A websocket keeps the principal it authenticated with; its key may have been
    # revoked since (the socket is being closed, but a message may arrive first).
    if not isinstance(context, Context) or context.principal is None:
        return []
    if not context.runtime.api_keys.is_revoked(context.principal.key_id):
        return []
    refusal = ScopeError("this API key was revoked")
    return [GraphQLError(refusal.message, original_error=refusal)]


def request_refusals(
    context: object, document: DocumentNode, variables: Mapping[str, Any] | None
) -> list[GraphQLError]:
    """Why the operation must not run (a revoked key first, then unstorable text); empty
    when it may.

    Example: variables ``{"q": "a\\x00"}`` give one BAD_USER_INPUT error naming ``q``.
    """
    return revoked_key(context) or literal_errors(document) + variable_errors(variables)

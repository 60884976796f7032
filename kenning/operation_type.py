"""Whether an HTTP request asks for a subscription, which only a websocket can carry.

A subscription sent over HTTP would otherwise meet Strawberry's masked "Unexpected error";
the view answers 400 with ``SUBSCRIPTIONS_OVER_WS`` instead.
"""

from __future__ import annotations

from functools import lru_cache

from graphql import GraphQLError, parse
from strawberry.types.graphql import OperationType
from strawberry.utils.operation import get_operation_type

SUBSCRIPTIONS_OVER_WS = (
    "subscriptions run over the websocket at /graphql (graphql-transport-ws or graphql-ws), "
    "not over HTTP"
)


# Documents larger than this are not remembered by the subscription check (the schema's
# own caches decide for themselves); the check parses them anyway.
_SNIFF_CACHED_CHARS = 20_000


def subscribes(query: str | None, operation: str | None, max_tokens: int) -> bool:
    if not query or "subscription" not in query:
        return False
    if len(query) > _SNIFF_CACHED_CHARS:
        return _is_subscription(query, operation, max_tokens)
    return _cached_is_subscription(query, operation, max_tokens)


def _is_subscription(query: str, operation: str | None, max_tokens: int) -> bool:
    try:
        document = parse(query, max_tokens=max_tokens)
        return get_operation_type(document, operation) is OperationType.SUBSCRIPTION
    except (GraphQLError, RuntimeError):
        return False  # the schema reports what is wrong with it


_cached_is_subscription = lru_cache(maxsize=256)(_is_subscription)

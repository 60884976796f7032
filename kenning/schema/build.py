"""``build_schema()``: the one place the GraphQL schema is assembled."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import strawberry
from graphql import GraphQLError
from strawberry.extensions import (
    DisableIntrospection,
    MaxTokensLimiter,
    SchemaExtension,
)
from strawberry.types import ExecutionContext

from kenning.graphql.execution.document_guard import CheckedDocuments, DocumentGuard, DocumentLimits
from kenning.graphql.execution.document_parser import DocumentParser, parsed_documents
from kenning.graphql.execution.error_shaping import ErrorShaping, UnavailablePart
from kenning.graphql.execution.executor import KenningExecutor
from kenning.graphql.execution.operation_log import OperationLog, OperationObserver
from kenning.schema.mutation import Mutation
from kenning.schema.query import Query
from kenning.schema.subscription import Subscription


@dataclass(frozen=True, slots=True)
class ApiLimits:
    """What one GraphQL document may ask for; defaults fit every UI and agent query we
    know of with room to spare, and stop deeply nested, alias-amplified or
    fragment-amplified documents (``max_fields`` counts fields once fragments are
    spread: GraphiQL's introspection query has 229)."""

    max_depth: int = 12
    max_tokens: int = 4000
    max_aliases: int = 64
    max_fields: int = 5000
    introspection: bool = True
    document_cache: int = 512


class KenningSchema(strawberry.Schema):
    """Strawberry's schema, minus its own error logging: ``ErrorShaping`` logs each error
    once, at a level that fits it (a client's typo is no server error)."""

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        return None


def _nothing_down(_: BaseException) -> str | None:
    return None


def build_schema(
    limits: ApiLimits | None = None,
    *,
    unavailable: UnavailablePart = _nothing_down,
    observe: OperationObserver | None = None,
) -> strawberry.Schema:
    """A fresh schema object (no module-level global), guarded by ``limits``.

    ``unavailable`` tells which part (postgres, redis) an exception shows to be down; the
    composition root passes the storage layer's answer, so such errors become
    SERVICE_UNAVAILABLE instead of masked internal errors. ``observe`` hears each
    operation's name, type, outcome and duration (the metrics).
    """
    limits = limits or ApiLimits()
    extensions: list[type[SchemaExtension] | Callable[[], SchemaExtension]] = [
        # Outermost, so the access log and metrics see the codes errors end up with.
        partial(OperationLog, observe=observe),
        # Next, so it sees the errors every other extension produces.
        partial(ErrorShaping, unavailable=unavailable),
        partial(MaxTokensLimiter, max_token_count=limits.max_tokens),
    ]
    if not limits.introspection:
        extensions.append(DisableIntrospection)
    # Agents send the same few documents over and over: parsing and validating them cost
    # about a third of an ingest's server time before these caches. Validation results
    # are remembered with the limits' verdict included, so a refused document stays
    # refused.
    checked = CheckedDocuments(
        DocumentLimits(limits.max_depth, limits.max_aliases, limits.max_fields),
        limits.document_cache,
    )
    extensions += [
        partial(DocumentParser, remembered=parsed_documents(limits.document_cache)),
        partial(DocumentGuard, checked=checked),
    ]
    return KenningSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        extensions=extensions,
        # Refuses a revoked key and text PostgreSQL cannot store before a resolver runs,
        # completes plain fields directly, and runs a subscription event once per cohort
        # when the context carries the app's fan-out (kenning/graphql/execution/executor.py).
        execution_context_class=KenningExecutor,
    )

"""``build_schema()``: the one place the GraphQL schema is assembled."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import strawberry
from graphql import GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    DisableIntrospection,
    MaskErrors,
    MaxTokensLimiter,
    ParserCache,
    SchemaExtension,
    ValidationCache,
)
from strawberry.extensions.max_aliases import create_validator as alias_rule
from strawberry.extensions.query_depth_limiter import create_validator as depth_rule

from kenning.domain.errors import KenningError
from kenning.schema.mutation import Mutation
from kenning.schema.query import Query
from kenning.schema.subscription import Subscription


@dataclass(frozen=True, slots=True)
class ApiLimits:
    """What one GraphQL document may ask for; defaults fit every UI and agent query we
    know of with room to spare, and stop deeply nested or alias-amplified documents."""

    max_depth: int = 12
    max_tokens: int = 4000
    max_aliases: int = 64
    introspection: bool = True
    document_cache: int = 512


MASKED_MESSAGE = "Unexpected error; the server log has details under this request's id."


def _should_mask(error: GraphQLError) -> bool:
    # Typed domain errors carry messages written for clients; anything else (SQL, driver
    # and programming errors) is masked so no internals reach the caller.
    original = error.original_error
    return original is not None and not isinstance(original, KenningError)


def build_schema(limits: ApiLimits | None = None) -> strawberry.Schema:
    """A fresh schema object (no module-level global), guarded by ``limits``."""
    limits = limits or ApiLimits()
    extensions: list[type[SchemaExtension] | Callable[[], SchemaExtension]] = [
        partial(MaskErrors, should_mask_error=_should_mask, error_message=MASKED_MESSAGE),
        # The rule classes are built once per schema: the validation cache keys on them,
        # and QueryDepthLimiter/MaxAliasesLimiter would build new ones per request.
        partial(
            AddValidationRules,
            [depth_rule(limits.max_depth, None), alias_rule(limits.max_aliases)],
        ),
        partial(MaxTokensLimiter, max_token_count=limits.max_tokens),
    ]
    if not limits.introspection:
        extensions.append(DisableIntrospection)
    # Agents send the same few documents over and over: parsing and validating them cost
    # about a third of an ingest's server time before these caches. Validation results
    # are cached with the limiters' rules included, so a refused document stays refused.
    extensions += [
        partial(ParserCache, maxsize=limits.document_cache),
        partial(ValidationCache, maxsize=limits.document_cache),
    ]
    return strawberry.Schema(
        query=Query, mutation=Mutation, subscription=Subscription, extensions=extensions
    )

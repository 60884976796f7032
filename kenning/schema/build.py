"""``build_schema()``: the one place the GraphQL schema is assembled."""

from __future__ import annotations

from functools import partial

import strawberry
from graphql import GraphQLError
from strawberry.extensions import MaskErrors

from kenning.domain.errors import KenningError
from kenning.schema.mutation import Mutation
from kenning.schema.query import Query
from kenning.schema.subscription import Subscription

MASKED_MESSAGE = "Unexpected error; the server log has details under this request's id."


def _should_mask(error: GraphQLError) -> bool:
    # Typed domain errors carry messages written for clients; anything else (SQL, driver
    # and programming errors) is masked so no internals reach the caller.
    original = error.original_error
    return original is not None and not isinstance(original, KenningError)


def build_schema() -> strawberry.Schema:
    """A fresh schema object (no module-level global)."""
    return strawberry.Schema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        extensions=[
            partial(MaskErrors, should_mask_error=_should_mask, error_message=MASKED_MESSAGE)
        ],
    )

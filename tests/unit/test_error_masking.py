"""Unexpected errors are masked; typed domain errors keep their client-facing message."""

from __future__ import annotations

import strawberry
from graphql import GraphQLError

from kenning.domain.errors import ValidationError
from kenning.schema.build import MASKED_MESSAGE, _should_mask


def test_driver_errors_are_masked_and_domain_errors_are_not() -> None:
    leaked = GraphQLError("x", original_error=RuntimeError('relation "chunks" does not exist'))
    typed = GraphQLError("y", original_error=ValidationError("count must be 1..1000"))
    assert _should_mask(leaked) is True
    assert _should_mask(typed) is False


async def test_schema_masks_an_unexpected_exception() -> None:
    from functools import partial

    from strawberry.extensions import MaskErrors

    @strawberry.type
    class Query:
        @strawberry.field
        def boom(self) -> str:
            raise RuntimeError("SELECT secret FROM internals")

        @strawberry.field
        def bad(self) -> str:
            raise ValidationError("limit must be at most 100", field="limit")

    schema = strawberry.Schema(
        query=Query,
        extensions=[
            partial(MaskErrors, should_mask_error=_should_mask, error_message=MASKED_MESSAGE)
        ],
    )
    result = await schema.execute("{ boom }")
    assert result.errors and result.errors[0].message == MASKED_MESSAGE
    result = await schema.execute("{ bad }")
    assert result.errors and result.errors[0].message == "limit must be at most 100"

"""A model call's errors as members of a result union, beside the members of
``kenning.resolvers.errors`` (whose table lists the errors every feature shares).

``ModelOutputError`` becomes ``ModelOutputInvalid`` (with each attempt's error and, when the
call left one, its check-in id) and ``ModelCallError`` becomes ``ModelUnavailable``
(retryable when transient). ``model_error_members`` wraps a resolver already wrapped by
``error_members``, and returns a member only when its result union lists it.

Example::

    @model_error_members
    @error_members
    async def resolve_structure_knowledge(info: Info, ...) -> StructureKnowledgeResult: ...
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, ParamSpec, TypeVar, cast

import strawberry

from kenning.domain.models.ports import Attempt, ModelCallError, ModelOutputError
from kenning.resolvers.errors import union_members
from kenning.schema.extraction.errors import ModelAttempt, ModelOutputInvalid, ModelUnavailable

P = ParamSpec("P")
R = TypeVar("R")


def model_attempts(attempts: tuple[Attempt, ...]) -> list[ModelAttempt]:
    """The GraphQL form of a call's attempts."""
    return [
        ModelAttempt(number=a.number, duration_ms=a.duration_ms, error=a.error) for a in attempts
    ]


def model_error_member(error: ModelOutputError | ModelCallError) -> Any:
    """The member standing for a model call's error."""
    if isinstance(error, ModelOutputError):
        check_in_id = getattr(error, "check_in_id", None)
        return ModelOutputInvalid(
            code=error.code,
            message=error.message,
            field=error.field,
            model=error.model,
            attempts=model_attempts(error.attempts),
            check_in_id=strawberry.ID(check_in_id) if check_in_id else None,
        )
    return ModelUnavailable(
        code=error.code,
        message=error.message,
        field=error.field,
        retryable=error.transient,
        retry_after=error.retry_after,
    )


def model_error_members(
    resolver: Callable[P, Awaitable[R]],
) -> Callable[P, Coroutine[Any, Any, R]]:
    """``resolver``, returning a model call's error as the member its result union lists."""
    listed = union_members(resolver)

    @functools.wraps(resolver)
    async def resolve(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await resolver(*args, **kwargs)
        except (ModelOutputError, ModelCallError) as error:
            member = model_error_member(error)
            if type(member) not in listed:
                raise
            return cast(R, member)

    return resolve

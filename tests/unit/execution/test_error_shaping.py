"""Errors as GraphQL clients expect them: a code and request id on each, the unexpected
masked, client mistakes logged without a traceback."""

from __future__ import annotations

import enum
import logging
from collections.abc import AsyncGenerator, Iterator
from functools import partial
from types import SimpleNamespace
from typing import Any

import pytest
import strawberry
from strawberry.extensions import ValidationCache

from kenning.domain.access.principal import ANONYMOUS
from kenning.domain.embedding import EmbeddingError, EmbeddingErrorKind
from kenning.domain.errors import ConfigurationError, ScopeError, TooLargeError, ValidationError
from kenning.graphql.execution.error_shaping import MASKED_MESSAGE, ErrorShaping
from kenning.logs import request_id
from kenning.schema.build import KenningSchema, build_schema


@strawberry.enum
class Colour(enum.Enum):
    RED = "RED"


@strawberry.input
class Paint:
    litres: int
    colour: Colour


class DatabaseDown(OSError):
    pass


@strawberry.type
class Query:
    @strawberry.field
    def paint(self, input: Paint) -> int:
        return input.litres

    @strawberry.field
    def boom(self) -> str:
        raise RuntimeError('SELECT secret FROM "internals"')

    @strawberry.field
    def bad(self) -> str:
        raise ValidationError("limit must be at most 100", field="limit")

    @strawberry.field
    def huge(self) -> str:
        raise TooLargeError("content exceeds 2000000 characters", field="content")

    @strawberry.field
    def outside(self) -> str:
        raise ScopeError("this key may only read (role ui)")

    @strawberry.field
    def down(self) -> str:
        raise DatabaseDown("connection refused")

    @strawberry.field
    def embedder_away(self) -> str:
        raise EmbeddingError(
            "ollama at http://10.0.0.7:11434/api/embed unreachable",
            kind=EmbeddingErrorKind.OPERATIONAL,
        )

    @strawberry.field
    def embedder_broken(self) -> str:
        raise EmbeddingError("wrong dimension 768", kind=EmbeddingErrorKind.PERMANENT)

    @strawberry.field
    def misconfigured(self) -> str:
        raise ConfigurationError("graph kenning does not exist")

    @strawberry.field
    def promised(self) -> str:
        return None  # type: ignore[return-value]  # a bug: null for a non-null field


@strawberry.type
class Subscription:
    @strawberry.subscription
    async def ticks(self, count: int) -> AsyncGenerator[int, None]:
        if count < 1:
            raise ValidationError("count must be 1..1000", field="count")
        yield 1
        raise RuntimeError("lost the socket to 10.0.0.7")


def _down(error: BaseException) -> str | None:
    return "postgres" if isinstance(error, DatabaseDown) else None


def _schema() -> KenningSchema:
    return KenningSchema(
        query=Query,
        subscription=Subscription,
        extensions=[partial(ErrorShaping, unavailable=_down), partial(ValidationCache, maxsize=8)],
    )


@pytest.fixture
def rid() -> Iterator[str]:
    token = request_id.set("req-123")
    yield "req-123"
    request_id.reset(token)


async def _error(
    schema: KenningSchema, document: str, variables: dict[str, Any] | None = None
) -> tuple[str, dict[str, Any]]:
    result = await schema.execute(document, variable_values=variables)
    assert result.errors, "expected an error"
    [error] = result.errors
    return error.message, dict(error.extensions or {})


PAINT = "query Paint($input: Paint!) { paint(input: $input) }"


@pytest.mark.parametrize(
    ("variables", "says", "field"),
    [
        ({"litres": 1, "colour": "BLUE"}, "'BLUE' does not exist in 'Colour'", "input.colour"),
        ({"colour": "RED"}, "to include required field 'litres'", "input"),
        ({"litres": "two", "colour": "RED"}, "Int cannot represent non-integer", "input.litres"),
    ],
)
async def test_bad_variables_get_their_real_message_as_bad_user_input(
    rid: str, variables: dict[str, Any], says: str, field: str
) -> None:
    message, extensions = await _error(_schema(), PAINT, {"input": variables})
    assert says in message
    assert extensions == {"code": "BAD_USER_INPUT", "field": field, "requestId": rid}


async def test_the_same_mistake_written_inline_fails_validation(rid: str) -> None:
    message, extensions = await _error(_schema(), "{ paint(input: {litres: 1, colour: BLUE}) }")
    assert "BLUE" in message
    assert extensions == {"code": "GRAPHQL_VALIDATION_FAILED", "requestId": rid}


async def test_a_document_that_is_not_graphql_fails_parsing(rid: str) -> None:
    message, extensions = await _error(_schema(), "{ paint(")
    assert "Syntax Error" in message
    assert extensions["code"] == "GRAPHQL_PARSE_FAILED"


async def test_domain_errors_keep_their_message_with_code_reason_and_field(rid: str) -> None:
    schema = _schema()
    assert await _error(schema, "{ bad }") == (
        "limit must be at most 100",
        {"code": "BAD_USER_INPUT", "reason": "INVALID", "field": "limit", "requestId": rid},
    )
    _, huge = await _error(schema, "{ huge }")
    assert (huge["code"], huge["reason"], huge["field"]) == (
        "BAD_USER_INPUT",
        "TOO_LARGE",
        "content",
    )
    _, outside = await _error(schema, "{ outside }")
    assert (outside["code"], outside["reason"]) == ("FORBIDDEN", "OUT_OF_SCOPE")


async def test_unexpected_errors_are_masked_and_logged_with_the_traceback(
    rid: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="kenning.graphql"):
        message, extensions = await _error(_schema(), "{ boom }")
    assert message == MASKED_MESSAGE
    assert "internals" not in str(extensions)
    assert extensions == {"code": "INTERNAL_SERVER_ERROR", "requestId": rid}
    [record] = caplog.records
    assert record.levelno == logging.ERROR and record.exc_info is not None
    assert "internals" in str(record.exc_info[1])


async def test_client_mistakes_are_logged_at_info_without_a_traceback(
    rid: str, caplog: pytest.LogCaptureFixture
) -> None:
    schema = _schema()
    with caplog.at_level(logging.DEBUG, logger="kenning.graphql"):
        await _error(schema, "{ bad }")
        await _error(schema, PAINT, {"input": {"litres": 1, "colour": "BLUE"}})
        await _error(schema, "{ nothing }")
    assert [r.levelno for r in caplog.records] == [logging.INFO] * 3
    assert all(r.exc_info is None for r in caplog.records)


async def test_a_part_that_is_down_is_named(rid: str) -> None:
    message, extensions = await _error(_schema(), "{ down }")
    assert message == "PostgreSQL is unavailable; try again shortly"
    assert extensions == {"code": "SERVICE_UNAVAILABLE", "part": "postgres", "requestId": rid}


async def test_cached_validation_errors_get_each_request_its_own_id() -> None:
    schema = _schema()
    seen = []
    for rid in ("first", "second"):
        token = request_id.set(rid)
        try:
            _, extensions = await _error(schema, "{ nothing }")
        finally:
            request_id.reset(token)
        seen.append(extensions["requestId"])
    assert seen == ["first", "second"]


async def test_subscription_errors_are_shaped_too(rid: str) -> None:
    schema = _schema()
    results = []
    for count in (0, 1):
        stream = await schema.subscribe(f"subscription {{ ticks(count: {count}) }}")
        assert not hasattr(stream, "errors")
        results += [result async for result in stream]
    early, tick, failed = results
    assert early.errors and early.errors[0].extensions == {
        "code": "BAD_USER_INPUT", "reason": "INVALID", "field": "count", "requestId": rid
    }  # fmt: skip
    assert tick.data == {"ticks": 1}
    assert failed.errors and failed.errors[0].message == MASKED_MESSAGE
    assert "10.0.0.7" not in str(failed.errors[0].extensions)


async def test_the_kenning_schema_shapes_its_errors(rid: str) -> None:
    # No database is needed to refuse a depth out of range: only a caller (a read never
    # settles a project's group, so the group store is never asked).
    caller = SimpleNamespace(principal=ANONYMOUS, runtime=SimpleNamespace(project_groups=None))
    result = await build_schema().execute(
        '{ neighbors(key: "user:a", depth: 9) { nodes { key } } }', context_value=caller
    )
    assert result.errors
    assert result.errors[0].extensions == {
        "code": "BAD_USER_INPUT", "reason": "INVALID", "field": "depth", "requestId": rid
    }  # fmt: skip


async def test_an_embedder_that_is_away_is_a_part_down_without_its_address(rid: str) -> None:
    message, extensions = await _error(_schema(), "{ embedderAway }")
    assert message == "the embedder is unavailable; try again shortly"
    assert extensions == {"code": "SERVICE_UNAVAILABLE", "part": "embedder", "requestId": rid}


@pytest.mark.parametrize("field", ["embedderBroken", "misconfigured", "promised"])
async def test_server_faults_are_masked_not_blamed_on_the_client(rid: str, field: str) -> None:
    message, extensions = await _error(_schema(), f"{{ {field} }}")
    assert message == MASKED_MESSAGE
    assert extensions == {"code": "INTERNAL_SERVER_ERROR", "requestId": rid}


async def test_refused_input_values_stay_out_of_the_log(
    rid: str, caplog: pytest.LogCaptureFixture
) -> None:
    secret = "hunter2-very-secret"
    with caplog.at_level(logging.DEBUG, logger="kenning.graphql"):
        await _error(_schema(), PAINT, {"input": {"litres": secret, "colour": "RED"}})
    [record] = caplog.records
    assert record.__dict__["field"] == "input.litres"
    assert secret not in str(record.__dict__)

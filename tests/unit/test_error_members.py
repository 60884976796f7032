"""Domain errors become the GraphQL union members a resolver's result union lists, in one place.

Every domain error class maps to the member it always has, with its code, message, field and
extra fields; an error the union does not list, or that no member stands for, still
propagates and becomes a top-level GraphQL error.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated

import pytest
import strawberry

from kenning.domain.embedding import EmbeddingError, EmbeddingErrorKind
from kenning.domain.erasure.tombstone import ErasedSubjectError
from kenning.domain.errors import (
    ConfigurationError,
    ConflictError,
    ErrorCode,
    KenningError,
    NotFoundError,
    ScopeError,
    TooLargeError,
    ValidationError,
)
from kenning.domain.ingestion.secrets.findings import (
    SHOWN_FINDINGS,
    Finding,
    SecretKind,
    SensitiveContentError,
)
from kenning.domain.ingestion.source_connections import ConnectionRevokedError
from kenning.domain.queue.jobs import JobStateError, JobStatus, LeaseLostError, OperationalError
from kenning.domain.sources.files.errors import (
    FileProblem,
    FileRejectedError,
    FileTooLargeError,
    UnsupportedFileError,
    ZipBombError,
)
from kenning.resolvers.errors import MEMBERS, error_member, error_members
from kenning.schema import errors as gql
from kenning.schema.queue import types as queue_gql
from kenning.schema.sources import files as files_gql


def _finding(line: int) -> Finding:
    return Finding(SecretKind.GITHUB_TOKEN, line, 1, 41, 0, 40)


MAPPED = [
    (
        ValidationError("name must not be empty", field="name"),
        gql.ValidationError(code=ErrorCode.INVALID, message="name must not be empty", field="name"),
    ),
    (
        TooLargeError("at most 1000 documents per call", field="inputs"),
        gql.ValidationError(
            code=ErrorCode.TOO_LARGE, message="at most 1000 documents per call", field="inputs"
        ),
    ),
    (
        ScopeError("no API key was presented"),
        gql.ScopeError(code=ErrorCode.OUT_OF_SCOPE, message="no API key was presented", field=None),
    ),
    (
        NotFoundError("no such key", field="id"),
        gql.NotFoundError(code=ErrorCode.NOT_FOUND, message="no such key", field="id"),
    ),
    (
        ConflictError("another procedure has this trigger", field="triggerPattern"),
        gql.ConflictError(
            code=ErrorCode.CONFLICT,
            message="another procedure has this trigger",
            field="triggerPattern",
        ),
    ),
    (
        JobStateError("job is INDEXED", JobStatus.INDEXED),
        queue_gql.JobStateError(
            code=ErrorCode.CONFLICT, message="job is INDEXED", field=None, status=JobStatus.INDEXED
        ),
    ),
    (
        ConnectionRevokedError("github-acme"),
        queue_gql.ConnectionRevokedError(
            code=ErrorCode.CONFLICT,
            message="connection 'github-acme' is revoked",
            field="connectionId",
            connection_id="github-acme",
        ),
    ),
    (
        UnsupportedFileError("unsupported file type", detected="application/zip"),
        files_gql.FileRejected(
            code=ErrorCode.INVALID,
            message="unsupported file type",
            field="file",
            problem=FileProblem.UNSUPPORTED_TYPE,
            detected="application/zip",
        ),
    ),
    (
        ZipBombError("inflates 1000x"),
        files_gql.FileRejected(
            code=ErrorCode.TOO_LARGE,
            message="inflates 1000x",
            field="file",
            problem=FileProblem.ZIP_BOMB,
            detected=None,
        ),
    ),
    (
        ErasedSubjectError("content names an erased subject", field="content"),
        gql.ErasedSubject(
            code=ErrorCode.ERASED_SUBJECT,
            message="content names an erased subject",
            field="content",
        ),
    ),
]

UNMAPPED = [
    KenningError("plain"),
    LeaseLostError("lease lost"),
    OperationalError("database unreachable"),
    ConfigurationError("set KENNING_DATABASE_URL"),
    EmbeddingError("ollama busy (503)", kind=EmbeddingErrorKind.OPERATIONAL),
]


@pytest.mark.parametrize(("error", "member"), MAPPED, ids=lambda v: type(v).__name__)
def test_each_domain_error_maps_to_its_member_with_its_fields(
    error: KenningError, member: object
) -> None:
    assert error_member(error) == member
    assert type(error_member(error)) is type(member)


def test_sensitive_content_lists_the_shown_findings_never_the_text() -> None:
    error = SensitiveContentError([_finding(line) for line in range(1, SHOWN_FINDINGS + 6)])
    member = error_member(error)
    assert isinstance(member, gql.SensitiveContentError)
    assert (member.code, member.field) == (ErrorCode.SENSITIVE_CONTENT, "content")
    assert member.message == error.message and member.message.endswith("and 5 more")
    assert member.findings == [
        gql.SecretFinding(kind="github_token", line=line) for line in range(1, SHOWN_FINDINGS + 1)
    ]


@pytest.mark.parametrize("error", UNMAPPED, ids=lambda v: type(v).__name__)
def test_errors_no_member_stands_for_have_none(error: KenningError) -> None:
    assert error_member(error) is None


def test_the_table_covers_exactly_the_members_clients_receive() -> None:
    assert set(MEMBERS) == {
        ValidationError,
        SensitiveContentError,
        ScopeError,
        NotFoundError,
        ConflictError,
        JobStateError,
        ConnectionRevokedError,
        FileRejectedError,
        FileTooLargeError,
        ErasedSubjectError,
    }


@strawberry.type
class Done:
    ok: bool


Result = Annotated[Done | gql.ValidationError | gql.ScopeError, strawberry.union("Result")]


def _raising(error: Exception | None) -> Callable[..., Awaitable[object]]:
    @error_members
    async def resolve(reason: str = "") -> Result:
        """Raise ``error`` or succeed."""
        if error is not None:
            raise error
        return Done(ok=True)

    return resolve


async def test_a_listed_member_is_returned_in_place_of_the_error() -> None:
    resolve = _raising(ValidationError("bad", field="reason"))
    assert await resolve() == gql.ValidationError(
        code=ErrorCode.INVALID, message="bad", field="reason"
    )


@pytest.mark.parametrize(
    "error",
    [NotFoundError("gone"), ConnectionRevokedError("c1"), ConflictError("busy"), KeyError("x")],
    ids=lambda v: type(v).__name__,
)
async def test_an_error_the_union_does_not_list_is_raised_unchanged(error: Exception) -> None:
    resolve = _raising(error)
    with pytest.raises(type(error)) as raised:
        await resolve()
    assert raised.value is error


async def test_success_passes_through() -> None:
    assert await _raising(None)() == Done(ok=True)


def test_the_resolver_keeps_its_signature_and_stays_async() -> None:
    resolve = _raising(None)
    assert inspect.iscoroutinefunction(resolve)
    assert list(inspect.signature(resolve).parameters) == ["reason"]
    assert resolve.__doc__ == "Raise ``error`` or succeed."


def test_a_resolver_without_a_result_union_is_refused() -> None:
    async def resolve() -> Done:
        return Done(ok=True)

    with pytest.raises(TypeError, match="does not return a union"):
        error_members(resolve)


async def test_through_graphql_members_are_data_and_other_errors_top_level() -> None:
    error: list[Exception] = []

    @error_members
    async def resolve_result(reason: str) -> Result:
        """Fail with the error the test put in ``error``."""
        raise error[0]

    @strawberry.type
    class Query:
        result: Result = strawberry.field(resolver=resolve_result)

    schema = strawberry.Schema(query=Query)
    query = '{ result(reason: "r") { __typename ... on Error { code message field } } }'

    error.append(ScopeError("outside acme", field="scope"))
    answer = await schema.execute(query)
    assert answer.errors is None
    assert answer.data == {
        "result": {
            "__typename": "ScopeError",
            "code": "OUT_OF_SCOPE",
            "message": "outside acme",
            "field": "scope",
        }
    }

    error[0] = NotFoundError("gone")
    answer = await schema.execute(query)
    assert answer.data is None and answer.errors is not None
    assert [e.message for e in answer.errors] == ["gone"]

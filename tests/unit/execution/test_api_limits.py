"""The GraphQL document limits: depth, tokens, aliases, introspection."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from graphql import GraphQLError
from strawberry.schema.schema import validate_document

from kenning.graphql.execution import document_guard
from kenning.schema.build import ApiLimits, build_schema
from tests.support.loop_stall import LoopStalls


def _nested(depth: int) -> str:
    inner = "name"
    for _ in range(depth):
        inner = f"ofType {{ {inner} }}"
    return f"{{ __schema {{ types {{ fields {{ type {{ {inner} }} }} }} }} }}"


def _deep_graph(depth: int) -> str:
    inner = "key"
    for _ in range(depth):
        inner = f"edges {{ to {{ {inner} }} }}"
    return f'{{ node(key: "user:a") {{ {inner} }} }}'


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (_deep_graph(10), "exceeds maximum operation depth"),
        ("{ " + " ".join(f"a{i}: __typename" for i in range(65)) + " }", "aliases"),
        ("{ " + " ".join("__typename" for _ in range(5000)) + " }", "token"),
    ],
)
async def test_oversized_documents_are_refused(document: str, message: str) -> None:
    schema = build_schema()
    for _ in range(2):  # the second time comes from the validation cache
        result = await schema.execute(document)
        assert result.errors, "expected the document to be refused"
        assert message in result.errors[0].message.lower()


async def test_documents_within_limits_run() -> None:
    result = await build_schema().execute(_nested(3))
    assert result.errors is None


async def test_introspection_can_be_switched_off() -> None:
    closed = await build_schema(ApiLimits(introspection=False)).execute(
        "{ __schema { types { name } } }"
    )
    assert closed.errors and "introspection" in closed.errors[0].message.lower()
    open_ = await build_schema().execute("{ __schema { types { name } } }")
    assert open_.errors is None


async def test_a_repeated_document_is_validated_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []

    def counted(*args: Any) -> list[GraphQLError]:
        calls.append(args[1])
        return validate_document(*args)

    monkeypatch.setattr(document_guard, "validate_document", counted)
    schema = build_schema()
    for _ in range(3):
        assert (await schema.execute("{ onlyInThisTest: __typename }")).errors is None
    assert len(calls) == 1


def doubling_fragments(n: int) -> str:
    """Fragments that each spread the next one twice: 2**n fields in about 5n tokens."""
    lines = ["query Bomb { ...F0 }"]
    lines += [f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(n)]
    lines.append(f"fragment F{n} on Query {{ __typename }}")
    return "\n".join(lines)


async def test_a_fragment_bomb_is_refused_by_its_expanded_size_at_once() -> None:
    # The count is arithmetic: 2**39 fields (below the count's cap of 2**40) could not be
    # spread one by one in any test's time, so a message that states their exact number
    # shows the fragments were never expanded.
    schema = build_schema()
    for n, fields in ((18, "262,144"), (39, "549,755,813,888")):
        result = await schema.execute(doubling_fragments(n))
        assert result.errors, "expected the document to be refused"
        [error] = result.errors
        assert f"selects {fields} fields" in error.message and "limit" in error.message
        assert (error.extensions or {}).get("reason") == "TOO_LARGE"


async def test_a_refused_document_is_never_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_validation(*_: object) -> list[GraphQLError]:
        raise AssertionError("a validation rule ran on a refused document")

    monkeypatch.setattr(document_guard, "validate_document", no_validation)
    result = await build_schema().execute(doubling_fragments(30))
    assert result.errors and "fields" in result.errors[0].message


async def test_depth_and_aliases_count_through_fragments() -> None:
    deep = (
        'query Deep { node(key: "user:a") { ...E } }\n'
        + "".join(
            f"fragment {name} on Node {{ edges {{ to {{ ...{nxt} }} }} }}\n"
            for name, nxt in (("E", "E1"), ("E1", "E2"), ("E2", "E3"), ("E3", "E4"))
        )
        + "fragment E4 on Node { edges { to { edges { to { key } } } } }"
    )
    [error] = (await build_schema().execute(deep)).errors or []
    assert error.message == "'Deep' exceeds maximum operation depth of 12"
    aliased = (
        "{ ...A ...A } fragment A on Query { "
        + " ".join(f"a{i}: __typename" for i in range(33))
        + " }"
    )
    [error] = (await build_schema().execute(aliased)).errors or []
    assert error.message == "66 aliases found. Allowed: 64"


async def test_fragment_cycles_end_in_the_cycle_error() -> None:
    cyclic = "{ ...A } fragment A on Query { __typename ...B } fragment B on Query { ...A ...B }"
    result = await build_schema().execute(cyclic)
    assert result.errors
    assert any("within itself" in error.message for error in result.errors)


def _overlapping(count: int) -> str:
    spreads = " ".join(f"...F{i}" for i in range(count))
    fragments = " ".join(
        f"fragment F{i} on Query {{ __schema {{ queryType {{ name }} }} }}" for i in range(count)
    )
    return f"query Overlap {{ {spreads} }} {fragments}"


async def test_validating_a_new_large_document_leaves_the_loop_free(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rules run in a worker thread, not on the loop, and the loop does not wait for
    them: before and after the rules, the thread hands the loop a callback and waits for it
    to run. Were the rules on the loop, or the loop blocked on the thread, that wait could
    never end (it gives up after 10 s and fails the document)."""
    schema = build_schema()
    await schema.execute("{ __typename }")  # warm-up
    loop = asyncio.get_running_loop()
    loop_thread = threading.current_thread()
    threads: list[threading.Thread] = []

    def loop_answers() -> None:
        answered = threading.Event()
        loop.call_soon_threadsafe(answered.set)
        if not answered.wait(10):
            raise AssertionError("the loop did not run while the document was validated")

    def validate_while_the_loop_answers(*args: Any) -> Any:
        threads.append(threading.current_thread())
        loop_answers()
        errors = validate_document(*args)
        loop_answers()
        return errors

    monkeypatch.setattr(document_guard, "validate_document", validate_while_the_loop_answers)
    result = await asyncio.wait_for(schema.execute(_overlapping(200)), 30)
    assert result.errors is None
    assert len(threads) == 1 and threads[0] is not loop_thread


def _inline(content: str) -> str:
    return f'{{ __type(name: "{content}") {{ name }} }}'


async def test_a_large_document_is_parsed_with_the_loop_free() -> None:
    schema = build_schema()
    document = _inline("a" * 2_000_000)  # 240 ms of parsing
    async with LoopStalls() as stalls:
        result = await schema.execute(document)
    assert (result.data, result.errors) == ({"__type": None}, None)
    assert stalls.longest < 0.05, f"the loop stood still {stalls.worst}"


async def test_a_large_document_that_is_no_graphql_gets_the_syntax_error() -> None:
    schema = build_schema()
    small, large = _inline("x") + " }", _inline("x" * 40_000) + " }"
    errors = [(await schema.execute(document)).errors for document in (small, large)]
    assert [e[0].message for e in errors if e] == ["Syntax Error: Unexpected '}'."] * 2

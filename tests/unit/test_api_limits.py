"""The GraphQL document limits: depth, tokens, aliases, introspection."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.schema.build import ApiLimits, build_schema


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


async def test_a_repeated_document_is_validated_once() -> None:
    from strawberry.extensions.validation_cache import _get_validate_cache

    limits = ApiLimits()
    schema = build_schema(limits)
    # Strawberry types the shared cache as a plain callable; it is an lru_cache wrapper.
    cached: Any = _get_validate_cache(limits.document_cache)
    before = cached.cache_info()
    document = "{ onlyInThisTest: __typename }"
    for _ in range(3):
        assert (await schema.execute(document)).errors is None
    after = cached.cache_info()
    assert (after.misses - before.misses, after.hits - before.hits) == (1, 2)

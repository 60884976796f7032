"""Plain fields completed directly give exactly graphql-core's result: data, nulls, errors,
messages and paths, over many generated values and many query shapes."""

from __future__ import annotations

import asyncio
import enum
import random
from collections.abc import Awaitable, Generator
from typing import Any

import pytest
import strawberry
from strawberry.scalars import JSON
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext
from strawberry.types import ExecutionResult

from kenning.graphql.execution.executor import KenningExecutor
from kenning.graphql.execution.field_plan import known_attribute


@strawberry.enum
class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


@strawberry.type
class Leafy:
    name: str
    count: int
    ratio: float | None
    color: Color
    extra: JSON


async def _slow_leafy(root: Holder, info: strawberry.Info) -> Leafy | None:
    await asyncio.sleep(0)
    return root.backup


@known_attribute("known")
def _known(root: Holder, info: strawberry.Info) -> Leafy | Awaitable[Leafy | None] | None:
    if root.known is not None:
        return root.known
    return _slow_leafy(root, info)


def _boom(root: Holder) -> str:
    raise ValueError(f"boom {root.label}")


@strawberry.type
class Holder:
    label: str
    required: Leafy
    optional: Leafy | None
    items: list[Leafy]
    maybe_items: list[Leafy | None] | None
    known: strawberry.Private[Leafy | None]
    backup: strawberry.Private[Leafy | None]
    via_known = strawberry.field(resolver=_known, graphql_type=Leafy)
    nullable_known = strawberry.field(resolver=_known, graphql_type=Leafy | None)
    loud: str = strawberry.field(resolver=_boom)

    @strawberry.field
    def shout(self, times: int = 1) -> str:
        return self.label.upper() * times


@strawberry.type
class Query:
    holders: list[Holder]
    holder: Holder | None


def _leafy(rng: random.Random, i: int) -> Leafy:
    def pick(good: Any, *bad: Any) -> Any:
        return good if rng.random() > 0.15 else rng.choice(bad)

    return Leafy(
        name=pick(f"n{i}", None, 3, _later(f"late{i}")),
        count=pick(i, None, "x", 2**40, 1.5, _later(i)),
        ratio=pick(i / 3, None, "x"),
        color=pick(Color.RED, None, "green", "blue"),
        extra=pick({"k": i}, None, [1, 2]),
    )


class _later:  # an awaitable value, reusable and silent when never awaited
    def __init__(self, value: Any) -> None:
        self.value = value

    def __await__(self) -> Generator[Any, None, Any]:
        yield from asyncio.sleep(0).__await__()
        return self.value


def _holder(rng: random.Random, i: int) -> Holder:
    def maybe(value: Any) -> Any:
        return value if rng.random() > 0.2 else None

    return Holder(
        label=f"h{i}",
        required=maybe(_leafy(rng, i)),
        optional=maybe(_leafy(rng, i + 100)),
        items=maybe([maybe(_leafy(rng, i * 10 + j)) for j in range(3)]),
        maybe_items=maybe([maybe(_leafy(rng, i * 10 + j)) for j in range(2)]),
        known=maybe(_leafy(rng, i + 200)),
        backup=maybe(_leafy(rng, i + 300)),
    )


LEAF = "name count ratio color extra __typename"
QUERIES = [
    f"{{ holders {{ label required {{ {LEAF} }} optional {{ {LEAF} }} }} }}",
    f"{{ holders {{ items {{ {LEAF} }} maybeItems {{ name ratio }} }} }}",
    f"{{ holder {{ viaKnown {{ {LEAF} }} nullableKnown {{ name color }} }} }}",
    f"{{ holders {{ viaKnown {{ {LEAF} }} loud label }} }}",
    "{ holders { a: label b: label shout(times: 2) required { n: name c: count } } }",
    "query($s: Boolean!, $i: Boolean!) { holders { label @skip(if: $s)"
    " required @include(if: $i) { name count } optional { name @include(if: $s) } } }",
    "fragment L on Leafy { name extra } { holders { required { ...L color } ... on Holder"
    " { optional { ...L } } __typename } }",
    "{ holder { required { name } items { count } } holders { optional { color } } }",
]


def _schema(executor: type[StrawberryGraphQLCoreExecutionContext]) -> strawberry.Schema:
    return strawberry.Schema(query=Query, execution_context_class=executor)


def _shape(result: ExecutionResult) -> tuple[Any, Any]:
    errors = sorted(
        (e.message, e.path, [(loc.line, loc.column) for loc in e.locations or ()])
        for e in result.errors or ()
    )
    return result.data, errors


@pytest.mark.parametrize("seed", range(40))
async def test_plain_fields_match_graphql_core(seed: int) -> None:
    planned, reference = _schema(KenningExecutor), _schema(StrawberryGraphQLCoreExecutionContext)
    for query in QUERIES:
        for skip in (False, True):
            rng = random.Random(seed)
            root = Query(holders=[_holder(rng, i) for i in range(4)], holder=_holder(rng, 9))
            variables = {"s": skip, "i": not skip}
            fast = await planned.execute(query, root_value=root, variable_values=variables)
            rng = random.Random(seed)
            root = Query(holders=[_holder(rng, i) for i in range(4)], holder=_holder(rng, 9))
            slow = await reference.execute(query, root_value=root, variable_values=variables)
            assert _shape(fast) == _shape(slow), query


async def test_plain_happy_path_is_complete() -> None:
    # The fast path on valid values yields data, not just agreement on failures.
    leaf = Leafy(name="a", count=1, ratio=None, color=Color.BLUE, extra=JSON({"x": [1]}))
    holder = Holder(
        label="h",
        required=leaf,
        optional=None,
        items=[leaf],
        maybe_items=None,
        known=leaf,
        backup=None,
    )
    query = f"{{ holder {{ label required {{ {LEAF} }} viaKnown {{ name }} items {{ count }} }} }}"
    root = Query(holders=[], holder=holder)
    result = await _schema(KenningExecutor).execute(query, root_value=root)
    assert result.errors is None
    assert result.data == {
        "holder": {
            "label": "h",
            "required": {
                "name": "a",
                "count": 1,
                "ratio": None,
                "color": "BLUE",
                "extra": {"x": [1]},
                "__typename": "Leafy",
            },
            "viaKnown": {"name": "a"},
            "items": [{"count": 1}],
        }
    }

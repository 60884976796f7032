"""The executor's planned-fields hook: plain fields skip graphql-core's resolvers (and so a
resolve middleware would miss them), unless a middleware is installed; a selection set is
planned once per operation."""

from __future__ import annotations

from typing import Any

import pytest
import strawberry
from graphql import GraphQLResolveInfo, execute, parse

from kenning.graphql.execution import planned_fields
from kenning.graphql.execution.executor import KenningExecutor
from kenning.graphql.execution.field_plan import plan_fields

QUERY = parse("{ items { name } first { name } }")


@strawberry.type
class Item:
    name: str


@strawberry.type
class Query:
    items: list[Item]
    first: Item


def run(middleware: list[Any] | None = None) -> tuple[Any, list[str]]:
    seen: list[str] = []

    def resolve(next_: Any, root: Any, info: GraphQLResolveInfo[Any], **args: Any) -> Any:
        seen.append(info.field_name)
        return next_(root, info, **args)

    schema = strawberry.Schema(query=Query)._schema
    root = Query(items=[Item(name="a"), Item(name="b")], first=Item(name="c"))
    result = execute(
        schema,
        QUERY,
        root,
        middleware=[resolve] if middleware is not None else None,
        executor_class=KenningExecutor,
    )
    assert not isinstance(result, list) and not hasattr(result, "__await__")
    return result, seen


def test_plain_fields_are_completed_without_their_resolvers() -> None:
    result, _ = run()
    assert result.errors is None
    assert result.data == {"items": [{"name": "a"}, {"name": "b"}], "first": {"name": "c"}}


def test_a_resolve_middleware_sees_every_field() -> None:
    result, seen = run(middleware=[])
    assert result.data == {"items": [{"name": "a"}, {"name": "b"}], "first": {"name": "c"}}
    assert sorted(seen) == ["first", "items", "name", "name", "name"]


def test_a_selection_set_is_planned_once(monkeypatch: pytest.MonkeyPatch) -> None:
    planned: list[str] = []

    def counted(schema: Any, parent_type: Any, fields: Any) -> Any:
        planned.append(parent_type.name)
        return plan_fields(schema, parent_type, fields)

    monkeypatch.setattr(planned_fields, "plan_fields", counted)
    result, _ = run()
    assert result.errors is None
    # The root's set, the items' one set (not one per item), and first's.
    assert sorted(planned) == ["Item", "Item", "Query"]

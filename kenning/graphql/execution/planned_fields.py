"""The executor's planned-fields hook: plain fields completed without graphql-core's per-field
machinery.

graphql-core executes every field the same way: a ``GraphQLResolveInfo``, the resolver
(Strawberry's wrapper around ``getattr`` for a plain field), then ``complete_value`` through
its type wrappers. For the plain fields of ``field_plan``, ``PlannedFields`` reads the
attribute and coerces a leaf directly, or completes an object's sub-selection directly.
Whatever is not the plain happy case (an exception, a None in a non-null field, an awaitable,
a value coercion refuses) is handed to graphql-core's ``execute_field`` for that field, which
reads the attribute again (a pure read) and produces exactly the data, nulls, errors and
paths it always does. A 2-hop ``neighbors`` read (100 nodes, 100 edges) spends half the time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final

from graphql import GraphQLObjectType, GraphQLSchema, Undefined
from graphql.execution import Executor
from graphql.execution.collect_fields import FieldDetails
from graphql.pyutils import Path, gather_with_cancel

from kenning.graphql.execution.field_plan import (
    LEAF,
    LIST,
    OBJECT,
    Plan,
    PlannedField,
    plan_fields,
)

_SLOW: Final = object()  # "graphql-core's own path decides this field"
# Values no output coercion would need awaited first (cheaper than the awaitable check).
_PLAIN_VALUES: Final = frozenset({str, int, float, bool, dict, list})
_LISTS: Final = frozenset({list, tuple})

Run = Executor[Any]  # the operation's executor, whose graphql-core steps a slow field takes


def _leaf(field: PlannedField, source: Any, run: Run) -> Any:
    try:
        value = field.read(source)
        if value is None or value is Undefined:
            return None if field.nullable else _SLOW
        if value.__class__ not in _PLAIN_VALUES and (
            isinstance(value, Exception) or run.is_awaitable(value)
        ):
            return _SLOW
        completed = field.complete(value)
    except Exception:
        return _SLOW
    return _SLOW if completed is None or completed is Undefined else completed


class PlannedFields:
    """The plans of one operation's selection sets, and their plain fields completed."""

    __slots__ = ("_plans", "_schema")

    def __init__(self, schema: GraphQLSchema) -> None:
        self._schema = schema
        # Keyed by the identity of the collected field set, kept alive beside its plan so
        # the identity is never reused while this operation runs.
        self._plans: dict[int, tuple[Mapping[str, Any], Plan | None]] = {}

    @classmethod
    def of(cls, run: Run) -> PlannedFields | None:
        """The hook for ``run``'s operation; None when a resolve middleware must see every
        field (then nothing is planned)."""
        manager = run.middleware_manager
        return None if manager is not None and manager.middlewares else cls(run.schema)

    def plan(self, parent_type: GraphQLObjectType, grouped_field_set: Any) -> Plan | None:
        """How to complete the set's fields; None when none is plain."""
        cached = self._plans.get(id(grouped_field_set))
        if cached is None:
            cached = (grouped_field_set, plan_fields(self._schema, parent_type, grouped_field_set))
            self._plans[id(grouped_field_set)] = cached
        return cached[1]

    def execute(
        self,
        run: Run,
        parent_type: GraphQLObjectType,
        source: Any,
        path: Path | None,
        plan: Plan,
        position_context: Any,
    ) -> Any:
        """graphql-core's ``execute_fields`` for a planned set, plain fields completed in
        place."""
        results: dict[str, Any] = {}
        is_awaitable = run.is_awaitable
        awaitable_fields: list[str] = []
        try:
            for field in plan:
                name = field.name
                if field.kind == LEAF:
                    result = _leaf(field, source, run)
                elif field.kind == OBJECT:
                    result = _object(run, field, parent_type, source, path, position_context)
                elif field.kind == LIST:
                    result = _list(run, field, parent_type, source, path, position_context)
                else:
                    result = _SLOW
                if result is _SLOW:
                    field_path = Path(path, name, parent_type.name)
                    result = run.execute_field(
                        parent_type, source, field.details, field_path, position_context
                    )
                    if result is Undefined:
                        continue
                elif field.kind == LEAF:  # a coerced leaf is never awaitable
                    results[name] = result
                    continue
                results[name] = result
                if is_awaitable(result):
                    awaitable_fields.append(name)
        except Exception:
            if awaitable_fields:
                run.settle_in_background([results[name] for name in awaitable_fields])
            raise
        if not awaitable_fields:
            return results
        return _gathered(results, awaitable_fields)


def _object(
    run: Run,
    field: PlannedField,
    parent_type: GraphQLObjectType,
    source: Any,
    path: Path | None,
    position_context: Any,
) -> Any:
    try:
        value = field.read(source)
    except Exception:
        return _SLOW
    if value is None or value is Undefined:
        return None if field.nullable else _SLOW
    if isinstance(value, Exception) or run.is_awaitable(value):
        return _SLOW
    field_path = Path(path, field.name, parent_type.name)
    # From here on as execute_field and complete_value would do for an object type.
    return _completed(
        run,
        field,
        field_path,
        lambda: run.collect_and_execute_subfields(
            field.complete, field.details, field_path, value, position_context
        ),
    )


def _list(
    run: Run,
    field: PlannedField,
    parent_type: GraphQLObjectType,
    source: Any,
    path: Path | None,
    position_context: Any,
) -> Any:
    try:
        value = field.read(source)
    except Exception:
        return _SLOW
    if value is None or value is Undefined:
        return None if field.nullable else _SLOW
    plain = _plain_item(run)
    if value.__class__ not in _LISTS or not all(map(plain, value)):
        return _SLOW
    field_path = Path(path, field.name, parent_type.name)
    # From here on as execute_field and complete_list_value would do.
    return _completed(
        run, field, field_path, lambda: _items(run, field, value, field_path, position_context)
    )


def _completed(run: Run, field: PlannedField, path: Path, complete: Callable[[], Any]) -> Any:
    """``complete()`` as execute_field runs a completion: an error is the field's (null at
    ``path``), an awaitable result is awaited with the same error handling."""
    try:
        completed = complete()
    except Exception as raw_error:
        run.handle_field_error(raw_error, field.return_type, field.details, path)
        return None
    if run.is_awaitable(completed):
        return _awaited(run, completed, field.return_type, field.details, path)
    return completed


def _plain_item(run: Run) -> Callable[[Any], bool]:
    is_awaitable = run.is_awaitable
    return lambda item: not (item is None or isinstance(item, Exception) or is_awaitable(item))


def _items(
    run: Run, field: PlannedField, items: list[Any], path: Path, position_context: Any
) -> Any:
    # complete_iterable_value and complete_list_item_value for items of an object type.
    object_type, item_type = field.complete
    results: list[Any] = []
    awaitable_indices: list[int] = []
    try:
        for index, item in enumerate(items):
            item_path = path.add_key(index, None)
            try:
                completed = run.collect_and_execute_subfields(
                    object_type, field.details, item_path, item, position_context
                )
                if run.is_awaitable(completed):
                    completed = _awaited(run, completed, item_type, field.details, item_path)
                    awaitable_indices.append(index)
            except Exception as raw_error:
                run.handle_field_error(raw_error, item_type, field.details, item_path)
                completed = None
            results.append(completed)
    except Exception:
        if awaitable_indices:
            run.settle_in_background([results[index] for index in awaitable_indices])
        raise
    if not awaitable_indices:
        return results
    return _gathered(results, awaitable_indices)


async def _awaited(
    run: Run, completed: Awaitable[Any], return_type: Any, details: list[FieldDetails], path: Path
) -> Any:
    try:
        return await completed
    except Exception as raw_error:
        run.handle_field_error(raw_error, return_type, details, path)
        return None


async def _gathered(results: Any, keys: list[Any]) -> Any:
    # The awaitable entries of a result object or list, awaited together.
    if len(keys) == 1:
        results[keys[0]] = await results[keys[0]]
    else:
        awaited = await gather_with_cancel(*(results[key] for key in keys))
        for key, value in zip(keys, awaited, strict=True):
            results[key] = value
    return results

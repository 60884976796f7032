"""Which selected fields can skip graphql-core's per-field machinery, decided once per
selection set.

A field is *plain* when reading it is a pure attribute read: a Strawberry field with no
resolver, extension, permission or argument (or ``__typename``), selected with no directive
but an already evaluated ``@skip``/``@include``, and not deferred. A plain field whose type is
a scalar or an enum is a ``LEAF``; one whose type is an object type without ``is_type_of`` is
an ``OBJECT``; a list of such object types (not nested in another list) is a ``LIST``. A
resolver marked with ``known_attribute`` counts as an ``OBJECT`` read of that
attribute whenever the attribute is set (its resolver promises to return it then). Every
other field is ``OTHER`` and runs through graphql-core unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from operator import attrgetter
from typing import Any, Final, NamedTuple, TypeVar

from graphql import (
    GraphQLEnumType,
    GraphQLField,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
)
from graphql.execution.collect_fields import FieldDetails
from graphql.type.introspection import TypeNameMetaFieldDef

LEAF: Final = 0
OBJECT: Final = 1
LIST: Final = 2
OTHER: Final = 3

_DIRECTIVES_DONE = frozenset({"skip", "include"})  # evaluated when fields were collected
_STRAWBERRY = "strawberry-definition"
_KNOWN = "_kenning_known_attribute"

F = TypeVar("F", bound=Callable[..., Any])


def known_attribute(name: str) -> Callable[[F], F]:
    """Mark a resolver that returns ``getattr(root, name)`` whenever it is not None.

    >>> @known_attribute("from_node")
    ... def _from(root, info): ...
    """

    def mark(resolver: F) -> F:
        setattr(resolver, _KNOWN, name)
        return resolver

    return mark


class PlannedField(NamedTuple):
    """One response key of a selection set and how to complete it."""

    kind: int
    name: str
    details: list[FieldDetails]
    read: Callable[[Any], Any]
    # LEAF: the type's output coercion; OBJECT: the object type; LIST: the object type and
    # the item type; OTHER: None.
    complete: Any
    nullable: bool
    return_type: Any


Plan = tuple[PlannedField, ...]


def plan_fields(
    schema: GraphQLSchema,
    parent_type: GraphQLObjectType,
    grouped_field_set: Mapping[str, list[FieldDetails]],
) -> Plan | None:
    """How to complete each field of the set; None when no field is plain."""
    planned = tuple(
        _plan_field(schema, parent_type, name, details)
        for name, details in grouped_field_set.items()
    )
    return planned if any(field.kind != OTHER for field in planned) else None


def _other(name: str, details: list[FieldDetails]) -> PlannedField:
    return PlannedField(OTHER, name, details, _none, None, True, None)


def _none(_: Any) -> None:
    return None


def _plan_field(
    schema: GraphQLSchema, parent_type: GraphQLObjectType, name: str, details: list[FieldDetails]
) -> PlannedField:
    node = details[0].node
    field_def = schema.get_field(parent_type, node.name.value)
    if field_def is None or field_def.args or node.arguments or not _plain_selection(details):
        return _other(name, details)
    read = _reader(field_def, parent_type)
    if read is None:
        return _other(name, details)
    return_type = field_def.type
    non_null = isinstance(return_type, GraphQLNonNull)
    named = return_type.of_type if isinstance(return_type, GraphQLNonNull) else return_type
    known = _known(field_def) is not None
    if isinstance(named, GraphQLScalarType | GraphQLEnumType) and not known:
        coerce = named.coerce_output_value
        return PlannedField(LEAF, name, details, read, coerce, not non_null, return_type)
    if isinstance(named, GraphQLObjectType) and named.is_type_of is None:
        # A known attribute that is None is no null: its resolver loads the value then.
        nullable = not non_null and not known
        return PlannedField(OBJECT, name, details, read, named, nullable, return_type)
    if isinstance(named, GraphQLList) and not known:
        item_type = named.of_type
        item = item_type.of_type if isinstance(item_type, GraphQLNonNull) else item_type
        if isinstance(item, GraphQLObjectType) and item.is_type_of is None:
            items = (item, item_type)
            return PlannedField(LIST, name, details, read, items, not non_null, return_type)
    return _other(name, details)


def _plain_selection(details: list[FieldDetails]) -> bool:
    return all(
        detail.defer_usage is None
        and detail.fragment_variable_values is None
        and all(d.name.value in _DIRECTIVES_DONE for d in detail.node.directives or ())
        for detail in details
    )


def _reader(field_def: GraphQLField, parent_type: GraphQLObjectType) -> Callable[[Any], Any] | None:
    if field_def is TypeNameMetaFieldDef:
        type_name = parent_type.name
        return lambda _: type_name
    definition = (field_def.extensions or {}).get(_STRAWBERRY)
    if definition is None or definition.extensions:
        return None
    known = _known(field_def)
    if known is not None:
        return attrgetter(known)
    basic = getattr(field_def.resolve, "_is_default", False) and definition.is_basic_field
    if not basic or definition.default_resolver is not getattr:
        return None
    return attrgetter(definition.python_name)


def _known(field_def: GraphQLField) -> str | None:
    definition = (field_def.extensions or {}).get(_STRAWBERRY)
    resolver = getattr(definition, "base_resolver", None)
    return getattr(getattr(resolver, "wrapped_func", None), _KNOWN, None)

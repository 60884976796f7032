"""The API reference pages, written from ``schema.graphql`` at every docs build.

``api_pages(sdl)`` maps a page path (under ``reference/api/``) to its Markdown: the root
operations with their arguments, every type with its fields (and their arguments), every
enum value, union member and scalar, and the error codes with the error types that carry
them and the operations that can answer each. Nothing here is written by hand, so a schema
change reaches the docs at the next build.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from graphql import (
    GraphQLArgument,
    GraphQLEnumType,
    GraphQLField,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLType,
    GraphQLUnionType,
    build_schema,
    print_ast,
)
from graphql.utilities import ast_from_value

ROOT = "reference/api/"
ERROR_INTERFACE = "Error"
ERROR_CODE_ENUM = "ErrorCode"
_CODE_SPAN = re.compile(r"(`[^`]*`)")


def _page(named: GraphQLNamedType) -> str:
    if isinstance(named, GraphQLInputObjectType):
        return "inputs.md"
    if isinstance(named, GraphQLEnumType):
        return "enums.md"
    if isinstance(named, GraphQLUnionType | GraphQLInterfaceType):
        return "unions-and-interfaces.md"
    if isinstance(named, GraphQLScalarType):
        return "scalars.md"
    return "types.md"


def anchor(name: str) -> str:
    """The heading id MkDocs gives a heading that is one GraphQL name."""
    return name.lower()


def type_link(kind: GraphQLType) -> str:
    """``[[Hit](types.md#hit)!]!`` for ``[Hit!]!``: each named type linked to its entry."""
    if isinstance(kind, GraphQLNonNull):
        return f"{type_link(kind.of_type)}!"
    if isinstance(kind, GraphQLList):
        return f"[{type_link(kind.of_type)}]"
    assert isinstance(kind, GraphQLNamedType)
    return f"[{kind.name}]({_page(kind)}#{anchor(kind.name)})"


def text(description: str | None) -> str:
    """A schema description as one table cell: pipes escaped, ``<`` kept literal outside
    code spans, lines joined."""
    if not description:
        return ""
    parts = _CODE_SPAN.split(description)
    safe = [p if p.startswith("`") else p.replace("<", "&lt;") for p in parts]
    return "".join(safe).replace("|", "\\|").replace("\n", "<br>")


def _default(argument: GraphQLArgument | GraphQLInputField) -> str:
    if argument.ast_node is not None and argument.ast_node.default_value is not None:
        return f"`{print_ast(argument.ast_node.default_value)}`"
    value = ast_from_value(argument.default_value, argument.type)
    return f"`{print_ast(value)}`" if value is not None else ""


def _arguments(arguments: dict[str, GraphQLArgument]) -> list[str]:
    if not arguments:
        return ["No arguments.", ""]
    rows = ["| argument | type | default | description |", "|---|---|---|---|"]
    rows += [
        f"| `{name}` | {type_link(a.type)} | {_default(a)} | {text(a.description)} |"
        for name, a in arguments.items()
    ]
    return [*rows, ""]


def _field_cell(name: str, field: GraphQLField) -> str:
    if not field.args:
        return f"`{name}`"
    listed = "<br>".join(
        f"`{arg}`: {type_link(a.type)}" + (f" = {_default(a)}" if _default(a) else "")
        for arg, a in field.args.items()
    )
    return f"`{name}`<br>{listed}"


def _errors_of(result: GraphQLType, schema: GraphQLSchema) -> list[str]:
    named = _named(result)
    if not isinstance(named, GraphQLUnionType):
        return []
    error = schema.get_type(ERROR_INTERFACE)
    return [m.name for m in named.types if error is not None and error in m.interfaces]


def _named(kind: GraphQLType) -> GraphQLNamedType:
    while isinstance(kind, GraphQLNonNull | GraphQLList):
        kind = kind.of_type
    assert isinstance(kind, GraphQLNamedType)
    return kind


def _operations(title: str, root: GraphQLObjectType | None, schema: GraphQLSchema) -> str:
    lines = [f"# {title}", ""]
    if root is None:
        return "\n".join([*lines, "None.", ""])
    for name, field in sorted(root.fields.items()):
        lines += [f"## {name}", "", text(field.description), ""]
        lines += [f"**Returns** {type_link(field.type)}", ""]
        if errors := _errors_of(field.type, schema):
            members = ", ".join(f"[{e}](types.md#{anchor(e)})" for e in errors)
            lines += [f"**Error members** {members}", ""]
        lines += _arguments(field.args)
    return "\n".join(lines)


def _fields_table(fields: dict[str, GraphQLField]) -> list[str]:
    rows = ["| field | type | description |", "|---|---|---|"]
    rows += [
        f"| {_field_cell(n, f)} | {type_link(f.type)} | {text(f.description)} |"
        for n, f in fields.items()
    ]
    return [*rows, ""]


def _types(schema: GraphQLSchema, kinds: tuple[type, ...]) -> Iterable[GraphQLNamedType]:
    roots = {schema.query_type, schema.mutation_type, schema.subscription_type}
    for name in sorted(schema.type_map):
        named = schema.type_map[name]
        if not name.startswith("__") and isinstance(named, kinds) and named not in roots:
            yield named


def _objects(schema: GraphQLSchema) -> str:
    lines = ["# Types", "", "Every object type, with its fields and their arguments.", ""]
    for named in _types(schema, (GraphQLObjectType,)):
        assert isinstance(named, GraphQLObjectType)
        lines += [f"## {named.name}", "", text(named.description), ""]
        if named.interfaces:
            links = ", ".join(type_link(i) for i in named.interfaces)
            lines += [f"**Implements** {links}", ""]
        lines += _fields_table(named.fields)
    return "\n".join(lines)


def _abstract(schema: GraphQLSchema) -> str:
    lines = ["# Unions and interfaces", ""]
    for named in _types(schema, (GraphQLUnionType, GraphQLInterfaceType)):
        lines += [f"## {named.name}", "", text(named.description), ""]
        if isinstance(named, GraphQLUnionType):
            lines += ["**Members** " + ", ".join(type_link(m) for m in named.types), ""]
        else:
            assert isinstance(named, GraphQLInterfaceType)
            objects = _types(schema, (GraphQLObjectType,))
            members = [t for t in objects if isinstance(t, GraphQLObjectType)]
            members = [t for t in members if named in t.interfaces]
            lines += ["**Implemented by** " + ", ".join(type_link(m) for m in members), ""]
            lines += _fields_table(named.fields)
    return "\n".join(lines)


def _inputs(schema: GraphQLSchema) -> str:
    lines = ["# Inputs", ""]
    for named in _types(schema, (GraphQLInputObjectType,)):
        assert isinstance(named, GraphQLInputObjectType)
        lines += [f"## {named.name}", "", text(named.description), ""]
        rows = ["| field | type | default | description |", "|---|---|---|---|"]
        rows += [
            f"| `{n}` | {type_link(f.type)} | {_default(f)} | {text(f.description)} |"
            for n, f in named.fields.items()
        ]
        lines += [*rows, ""]
    return "\n".join(lines)


def _enums(schema: GraphQLSchema) -> str:
    lines = ["# Enums", ""]
    for named in _types(schema, (GraphQLEnumType,)):
        assert isinstance(named, GraphQLEnumType)
        lines += [f"## {named.name}", "", text(named.description), ""]
        lines += ["| value | description |", "|---|---|"]
        lines += [f"| `{v}` | {text(value.description)} |" for v, value in named.values.items()]
        lines += [""]
    return "\n".join(lines)


def _scalars(schema: GraphQLSchema) -> str:
    lines = ["# Scalars", ""]
    for named in _types(schema, (GraphQLScalarType,)):
        lines += [f"## {named.name}", "", text(named.description), ""]
    return "\n".join(lines)


def _error_codes(schema: GraphQLSchema) -> str:
    codes = schema.get_type(ERROR_CODE_ENUM)
    error = schema.get_type(ERROR_INTERFACE)
    assert isinstance(codes, GraphQLEnumType) and isinstance(error, GraphQLInterfaceType)
    lines = [
        "# Error codes",
        "",
        "An expected failure is a member of a field's result union; every such member",
        f"implements [{error.name}](unions-and-interfaces.md#{anchor(error.name)}) and carries",
        f"a `code` of [{codes.name}](enums.md#{anchor(codes.name)}). Errors of the request as a",
        "whole (`extensions.code`) are listed in [Errors](../errors.md).",
        "",
        "| code | description |",
        "|---|---|",
    ]
    lines += [f"| `{v}` | {text(value.description)} |" for v, value in codes.values.items()]
    lines += ["", "## Error members and the operations that answer them", ""]
    roots = [r for r in (schema.query_type, schema.mutation_type, schema.subscription_type) if r]
    for member in _types(schema, (GraphQLObjectType,)):
        assert isinstance(member, GraphQLObjectType)
        if error not in member.interfaces:
            continue
        answered = sorted(
            f"`{root.name}.{name}`"
            for root in roots
            for name, field in root.fields.items()
            if member.name in _errors_of(field.type, schema)
        )
        lines += [f"- {type_link(member)}: {', '.join(answered) or 'no operation'}"]
    return "\n".join([*lines, ""])


def _index(schema: GraphQLSchema) -> str:
    lines = [
        "# API reference",
        "",
        "Generated from `schema.graphql` at every build of these pages; `kenning schema`",
        "prints the same contract, and the test command fails when it drifts from the code.",
        "",
    ]
    for title, page, root in (
        ("Queries", "queries.md", schema.query_type),
        ("Mutations", "mutations.md", schema.mutation_type),
        ("Subscriptions", "subscriptions.md", schema.subscription_type),
    ):
        names = sorted(root.fields) if root else []
        links = ", ".join(f"[`{n}`]({page}#{anchor(n)})" for n in names)
        lines += [f"## {title}", "", links or "None.", ""]
    lines += [
        "## Types",
        "",
        "[Types](types.md), [inputs](inputs.md), [enums](enums.md),",
        "[unions and interfaces](unions-and-interfaces.md), [scalars](scalars.md),",
        "[error codes](error-codes.md).",
        "",
    ]
    return "\n".join(lines)


def api_pages(sdl: str) -> dict[str, str]:
    """Every API reference page of ``sdl``, keyed by its path in the docs."""
    schema = build_schema(sdl)
    pages = {
        "index.md": _index(schema),
        "queries.md": _operations("Queries", schema.query_type, schema),
        "mutations.md": _operations("Mutations", schema.mutation_type, schema),
        "subscriptions.md": _operations("Subscriptions", schema.subscription_type, schema),
        "types.md": _objects(schema),
        "unions-and-interfaces.md": _abstract(schema),
        "inputs.md": _inputs(schema),
        "enums.md": _enums(schema),
        "scalars.md": _scalars(schema),
        "error-codes.md": _error_codes(schema),
    }
    return {ROOT + name: page for name, page in pages.items()}

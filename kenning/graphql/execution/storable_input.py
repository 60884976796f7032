"""One check of every string a GraphQL request carries: text PostgreSQL cannot store is
refused, by the rule of ``kenning.domain.storable_text``.

Such text used to reach the driver and come back as a masked internal error from wherever
it was used: a metadata key, a search query, a kind, a URN. The check runs when
graphql-core builds the executor (``request_checks.py``), before any resolver, for queries,
mutations and subscriptions alike, over every variable (JSON scalars, their keys included)
and every string literal of the document. The error is BAD_USER_INPUT and its ``field``
names the variable or argument (``input.metadata``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphql import (
    ArgumentNode,
    DocumentNode,
    GraphQLError,
    ObjectFieldNode,
    StringValueNode,
    VariableDefinitionNode,
    Visitor,
    visit,
)

from kenning.domain.storable_text import unstorable, unstorable_strings


def variable_errors(variables: Mapping[str, Any] | None) -> list[GraphQLError]:
    """One error per variable holding unstorable text, worded as graphql-core words its own.

    Example: ``{"input": {"content": "a\\x00b"}}`` gives "Variable '$input' has invalid
    value at .content: it holds a NUL character (U+0000), which cannot be stored".
    """
    errors = []
    for name, value in (variables or {}).items():
        for where, what in unstorable_strings(value, ""):
            place = f" at {where}" if where else ""
            errors.append(
                GraphQLError(
                    f"Variable '${name}' has invalid value{place}: it holds {what}, "
                    "which cannot be stored",
                    extensions={"field": f"{name}{where}", "reason": "INVALID"},
                )
            )
            break
    return errors


class _Literals(Visitor):
    """Collects the string literals holding unstorable text, named by argument path."""

    def __init__(self) -> None:
        super().__init__()
        self.path: list[str] = []
        self.errors: list[GraphQLError] = []

    def enter_argument(self, node: ArgumentNode, *_: object) -> None:
        self.path.append(node.name.value)

    def enter_object_field(self, node: ObjectFieldNode, *_: object) -> None:
        self.path.append(node.name.value)

    def enter_variable_definition(self, node: VariableDefinitionNode, *_: object) -> None:
        self.path.append(node.variable.name.value)

    def leave_argument(self, *_: object) -> None:
        self.path.pop()

    leave_object_field = leave_argument
    leave_variable_definition = leave_argument

    def enter_string_value(self, node: StringValueNode, *_: object) -> None:
        what = unstorable(node.value)
        if what is not None:
            field = ".".join(self.path)
            self.errors.append(
                GraphQLError(
                    f"Argument '{field}' holds {what}, which cannot be stored",
                    nodes=[node],
                    extensions={"field": field, "reason": "INVALID"},
                )
            )


def literal_errors(document: DocumentNode) -> list[GraphQLError]:
    """An error per string literal holding unstorable text."""
    source = document.loc.source.body if document.loc is not None else None
    # The lexer refuses raw NULs and surrogates: only an escape can spell one. One
    # character is found at memchr speed (2 ms in a 25 MB document; "\\u" took 24 ms, on
    # the loop).
    if source is not None and "\\" not in source:
        return []
    literals = _Literals()
    visit(document, literals)
    return literals.errors

"""One check of every string a request carries: text PostgreSQL cannot store is refused.

PostgreSQL's text holds no NUL character, and UTF-8 has no lone surrogates (JSON can spell
one, ``"\\ud800"``, and Python decodes it). Such text used to reach the driver and come
back as a masked internal error from wherever it was used: a metadata key, a search query,
a kind, a URN. The check runs when graphql-core builds the executor (``schema.executor``),
before any resolver, for queries, mutations and subscriptions alike, over every variable
(JSON scalars, their keys included) and every string literal of the document. The error
is BAD_USER_INPUT and its ``field`` names the variable or argument (``input.metadata``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
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

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_NAME = re.compile(r"\w+")


def _what(text: str) -> str | None:
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    char = found.group()
    if char == "\x00":
        return "a NUL character (U+0000)"
    return f"a lone surrogate (U+{ord(char):04X})"


def _bad_strings(value: object, path: str) -> Iterator[tuple[str, str]]:
    """(path, what) of each unstorable string in a JSON-like value, keys included."""
    pending: list[tuple[object, str]] = [(value, path)]
    while pending:  # iterative: variables may nest as deep as JSON allows
        item, where = pending.pop()
        if isinstance(item, str):
            what = _what(item)
            if what is not None:
                yield where, what
        elif isinstance(item, Mapping):
            for key, inner in item.items():
                text = str(key)
                what = _what(text)
                if what is not None:
                    yield where, f"a key with {what}"
                # A key that is no identifier would not read as a path: name its parent.
                pending.append((inner, f"{where}.{text}" if _NAME.fullmatch(text) else where))
        elif isinstance(item, list | tuple):
            pending.extend((inner, f"{where}[{index}]") for index, inner in enumerate(item))


def variable_errors(variables: Mapping[str, Any] | None) -> list[GraphQLError]:
    """One error per variable holding unstorable text, worded as graphql-core words its own.

    Example: ``{"input": {"content": "a\\x00b"}}`` gives "Variable '$input' has invalid
    value at .content: it holds a NUL character (U+0000), which cannot be stored".
    """
    errors = []
    for name, value in (variables or {}).items():
        for where, what in _bad_strings(value, ""):
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
        what = _what(node.value)
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
    # The lexer refuses raw NULs and surrogates: only an escape can spell one.
    if source is not None and "\\u" not in source:
        return []
    literals = _Literals()
    visit(document, literals)
    return literals.errors

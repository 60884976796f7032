"""Parsing of GraphQL documents: remembered when small, off the event loop when large.

graphql-core's lexer reads a string literal one character at a time in Python: a document
holding a 2 MB literal takes 240 ms to parse, 25 MB three seconds, which the loop, serving
every other request and websocket, must not spend. A document of ``OFF_LOOP_CHARS`` or
more is parsed in the shared worker thread and not remembered (the same large document is
rarely sent twice); a smaller one is parsed once and remembered (``parsed_documents``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from functools import lru_cache, partial

from graphql import DocumentNode, parse
from strawberry.extensions import SchemaExtension

from kenning.domain.off_loop import OFF_LOOP_CHARS, off_loop

Parse = Callable[..., DocumentNode]


def parsed_documents(size: int) -> Parse:
    """``graphql.parse`` remembering the last ``size`` documents (shared by requests)."""
    return lru_cache(maxsize=size)(parse)


class DocumentParser(SchemaExtension):
    """Strawberry's ``ParserCache`` for small documents, a worker thread for large ones."""

    def __init__(self, *, remembered: Parse) -> None:
        self._remembered = remembered

    async def on_parse(self) -> AsyncIterator[None]:
        context = self.execution_context
        query = context.query or ""
        options = context.parse_options
        if len(query) < OFF_LOOP_CHARS:
            context.graphql_document = self._remembered(query, **options)
        else:
            context.graphql_document = await off_loop(len(query), partial(parse, query, **options))
        yield

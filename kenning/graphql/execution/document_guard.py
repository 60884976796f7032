"""Validation of GraphQL documents: cost limits first, then the rules, off the event loop.

A new document is measured (``document_cost``: fields once fragments are spread, depth,
aliases) before any validation rule sees it, and refused outright when it is over a limit,
so no rule ever expands a fragment bomb. A document within the limits is validated by
graphql-core's rules in a worker thread: with a few thousand tokens, the rule that
compares overlapping fields can take seconds, which the loop, serving every other request
and websocket, must not spend. Both results are remembered per document, so the documents
agents send over and over cost a dictionary lookup.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from graphql import ASTValidationRule, DocumentNode, GraphQLError, GraphQLSchema
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document

from kenning.graphql.execution.document_cost import measure

Rules = tuple[type[ASTValidationRule], ...]


@dataclass(frozen=True, slots=True)
class DocumentLimits:
    """How big one document may be; see ``ApiLimits``."""

    max_depth: int
    max_aliases: int
    max_fields: int


def over_limits(document: DocumentNode, limits: DocumentLimits) -> list[GraphQLError]:
    """Why ``document`` is too big, with the messages Strawberry's limiters used; [] if not.

    Example: an operation nested 13 fields deep gives
    ``"'Deep' exceeds maximum operation depth of 12"``.
    """
    costs = measure(document)
    errors = [
        GraphQLError(f"'{name}' exceeds maximum operation depth of {limits.max_depth}")
        for name, cost in costs
        if cost.depth > limits.max_depth
    ]
    aliases = sum(cost.aliases for _, cost in costs)
    if aliases > limits.max_aliases:
        errors.append(GraphQLError(f"{aliases} aliases found. Allowed: {limits.max_aliases}"))
    fields = sum(cost.fields for _, cost in costs)
    if fields > limits.max_fields:
        errors.append(
            GraphQLError(
                f"the document selects {fields:,} fields once its fragments are spread; "
                f"the limit is {limits.max_fields:,}",
                extensions={"reason": "TOO_LARGE", "limit": limits.max_fields},
            )
        )
    return errors


class CheckedDocuments:
    """Remembers each document's validation errors; one per schema."""

    def __init__(self, limits: DocumentLimits, size: int) -> None:
        self._limits = limits
        self._size = size
        self._known: OrderedDict[tuple[object, Rules], list[GraphQLError]] = OrderedDict()
        # Two threads: a document that takes long to validate does not hold up the next.
        self._threads = ThreadPoolExecutor(max_workers=2, thread_name_prefix="graphql-validate")

    async def errors(
        self,
        schema: GraphQLSchema,
        document: DocumentNode,
        rules: Sequence[type[ASTValidationRule]],
    ) -> list[GraphQLError]:
        """The document's validation errors ([] when it may run)."""
        # Keyed by the text when there is one: hashing a document node walks the whole tree.
        text: object = document.loc.source.body if document.loc is not None else document
        key = (text, tuple(rules))
        known = self._known.get(key)
        if known is not None:
            self._known.move_to_end(key)
            return known
        errors = over_limits(document, self._limits)
        if not errors:
            loop = asyncio.get_running_loop()
            errors = await loop.run_in_executor(
                self._threads, validate_document, schema, document, key[1]
            )
        self._known[key] = errors
        if len(self._known) > self._size:
            self._known.popitem(last=False)
        return errors


class DocumentGuard(SchemaExtension):
    """Validation by ``CheckedDocuments`` in place of Strawberry's own (async only)."""

    def __init__(self, *, checked: CheckedDocuments) -> None:
        self._checked = checked

    async def on_validate(self) -> AsyncIterator[None]:
        context = self.execution_context
        assert context.graphql_document is not None  # parsing succeeded to get here
        # Set (even to []) so that Strawberry does not validate the document again.
        context.pre_execution_errors = await self._checked.errors(
            context.schema._schema, context.graphql_document, context.validation_rules
        )
        yield

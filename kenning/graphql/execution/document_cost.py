"""What a GraphQL document costs once its fragments are spread: fields, depth, aliases.

Expanding spreads is exponential in the worst case: fragments that each spread the next one
twice stand for 2**n fields in about 5n tokens. Here each fragment is measured once and a
spread adds the fragment's measure, so measuring is linear in the document's size whatever
it expands to. A spread that closes a fragment cycle counts nothing: validation reports
the cycle (``NoFragmentCyclesRule``).

Example: ``measure(parse("{ ...A ...A } fragment A on Query { a: __typename }"))``
is ``[("anonymous", Cost(fields=2, depth=0, aliases=2))]``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
)

# Counts saturate here: the exact size of a 2**1000-field document is of no use to anyone.
_CAP = 1 << 40


@dataclass(frozen=True, slots=True)
class Cost:
    """One definition's measure with every spread expanded.

    ``depth`` counts nested fields as Strawberry's depth limiter does: a field's
    selections are one level deeper than the field, introspection fields (``__schema``)
    and what they select do not count.
    """

    fields: int = 0
    depth: int = 0
    aliases: int = 0


@dataclass(slots=True)
class _Local:
    """A definition's own selections; its spreads are kept as (fragment, level, counted)."""

    fields: int = 0
    depth: int = 0
    aliases: int = 0
    spreads: list[tuple[str, int, bool]] = field(default_factory=list)


def _local(selection_set: SelectionSetNode) -> _Local:
    # Iterative: a document of a few thousand tokens may nest deeper than Python recurses.
    own = _Local()
    pending: list[tuple[SelectionSetNode, int, bool]] = [(selection_set, 0, True)]
    while pending:
        selections, level, counted = pending.pop()
        for selection in selections.selections:
            if counted:
                own.depth = max(own.depth, level)
            if isinstance(selection, FieldNode):
                own.fields += 1
                own.aliases += selection.alias is not None
                if selection.selection_set is not None:
                    inner = counted and not selection.name.value.startswith("__")
                    pending.append((selection.selection_set, level + 1, inner))
            elif isinstance(selection, InlineFragmentNode):
                pending.append((selection.selection_set, level, counted))
            elif isinstance(selection, FragmentSpreadNode):
                own.spreads.append((selection.name.value, level, counted))
    return own


def _combine(own: _Local, known: dict[str, Cost]) -> Cost:
    fields, depth, aliases = own.fields, own.depth, own.aliases
    for name, level, counted in own.spreads:
        spread = known.get(name)
        if spread is None:  # unknown, or a cycle back into the fragment being measured
            continue
        fields = min(fields + spread.fields, _CAP)
        aliases = min(aliases + spread.aliases, _CAP)
        if counted:
            depth = max(depth, level + spread.depth)
    return Cost(fields, depth, aliases)


def _fragments_measured(local: dict[str, _Local]) -> dict[str, Cost]:
    """Every fragment's cost, each computed once, in dependency order."""
    known: dict[str, Cost] = {}
    for root in local:
        if root in known:
            continue
        # Depth first with an explicit stack; ``next_spread`` holds the fragments on the
        # current path and which of their spreads to look at next.
        stack, next_spread = [root], {root: 0}
        while stack:
            name = stack[-1]
            index, spreads = next_spread[name], local[name].spreads
            if index < len(spreads):
                next_spread[name] = index + 1
                target = spreads[index][0]
                if target in local and target not in known and target not in next_spread:
                    stack.append(target)
                    next_spread[target] = 0
                continue
            known[name] = _combine(local[name], known)
            stack.pop()
            del next_spread[name]
    return known


def measure(document: DocumentNode) -> list[tuple[str, Cost]]:
    """Each operation's name (``anonymous`` when it has none) and cost, in document order."""
    # A repeated fragment name resolves to the last definition, as in graphql-core.
    local = {
        definition.name.value: _local(definition.selection_set)
        for definition in document.definitions
        if isinstance(definition, FragmentDefinitionNode)
    }
    known = _fragments_measured(local)
    return [
        (
            definition.name.value if definition.name else "anonymous",
            _combine(_local(definition.selection_set), known),
        )
        for definition in document.definitions
        if isinstance(definition, OperationDefinitionNode)
    ]

"""``CodeParser`` with tree-sitter: definitions and imports of one file.

The walk recurses into class bodies (methods, nested classes) and into the statements that
only wrap a definition (``export``, Go's grouped ``type ( … )``), never into function
bodies: a helper defined inside a function is part of that function's chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from tree_sitter import Node, Parser

from kenning.domain.sources.code.structure import (
    CodeLanguage,
    Definition,
    DefinitionKind,
    FileStructure,
)
from kenning.storage.sources.code import definitions, script_definitions
from kenning.storage.sources.code.grammars import child_of_type, grammar, lines, signature, text
from kenning.storage.sources.code.imports import imports

Classify = Callable[[Node, bool], definitions.Found | None]
_CLASSIFY: dict[CodeLanguage, Classify] = {
    CodeLanguage.PYTHON: definitions.python,
    CodeLanguage.KOTLIN: definitions.kotlin,
    CodeLanguage.JAVA: definitions.java,
    CodeLanguage.TYPESCRIPT: script_definitions.script,
    CodeLanguage.TSX: script_definitions.script,
    CodeLanguage.JAVASCRIPT: script_definitions.script,
    CodeLanguage.GO: script_definitions.go,
}
# Statements that wrap a definition without being one.
_WRAPPERS = frozenset(
    {
        "export_statement",
        "type_declaration",
        "class_body",
        "interface_body",
        "enum_class_body",
        "enum_body",
        "enum_body_declarations",
        "block",
        "declaration_list",
        "object_type",
        "statement_block",
    }
)


class TreeSitterParser:
    """Parses Python, Kotlin, Java, TypeScript (and TSX), JavaScript and Go."""

    def parse(self, path: str, language: CodeLanguage, content: bytes) -> FileStructure:
        """Definitions (outer before inner) and imports of ``content``."""
        tree = Parser(grammar(language)).parse(content)
        root = tree.root_node
        found = list(_walk(root, None, _CLASSIFY[language], content))
        return FileStructure(
            path=path,
            language=language,
            text=content.decode("utf-8", "replace"),
            definitions=tuple(found),
            imports=tuple(imports(root, language)),
            package=_package(root),
        )


def _walk(
    node: Node, parent: Definition | None, classify: Classify, source: bytes
) -> Iterator[Definition]:
    in_type = parent is not None and parent.kind.is_type
    for child in node.named_children:
        found = classify(child, in_type)
        if found is None or not found.name:
            if child.type in _WRAPPERS and (parent is None or in_type):
                yield from _walk(child, parent, classify, source)
            continue
        name = f"{parent.name}.{found.name}" if parent else found.name
        if found.receiver:
            name = f"{found.receiver}.{found.name}"
        start, end = lines(found.outer)
        definition = Definition(
            kind=found.kind,
            name=name,
            signature=signature(found.outer, found.body, source),
            start_line=start,
            end_line=end,
            parent=parent.name if parent else None,
            bases=found.bases,
            receiver=found.receiver,
        )
        yield definition
        if found.kind.is_type and found.body is not None:
            yield from _walk(found.body, definition, classify, source)


def _package(root: Node) -> str:
    header = child_of_type(root, "package_header", "package_declaration", "package_clause")
    if header is None:
        return ""
    named = child_of_type(
        header, "qualified_identifier", "scoped_identifier", "identifier", "package_identifier"
    )
    return text(named)


__all__ = ["DefinitionKind", "TreeSitterParser"]

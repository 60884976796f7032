"""The compiled tree-sitter grammars, one per language, loaded once per process."""

from __future__ import annotations

import functools

import tree_sitter_go
import tree_sitter_java
import tree_sitter_javascript
import tree_sitter_kotlin
import tree_sitter_python
import tree_sitter_typescript
from tree_sitter import Language, Node

from kenning.domain.sources.code.structure import CodeLanguage

_LOADERS = {
    CodeLanguage.PYTHON: tree_sitter_python.language,
    CodeLanguage.KOTLIN: tree_sitter_kotlin.language,
    CodeLanguage.JAVA: tree_sitter_java.language,
    CodeLanguage.TYPESCRIPT: tree_sitter_typescript.language_typescript,
    CodeLanguage.TSX: tree_sitter_typescript.language_tsx,
    CodeLanguage.JAVASCRIPT: tree_sitter_javascript.language,
    CodeLanguage.GO: tree_sitter_go.language,
}


@functools.cache
def grammar(language: CodeLanguage) -> Language:
    """The grammar of ``language``."""
    return Language(_LOADERS[language]())


def text(node: Node | None) -> str:
    """The source text of ``node`` (``""`` for none)."""
    return node.text.decode("utf-8", "replace") if node is not None and node.text else ""


def lines(node: Node) -> tuple[int, int]:
    """The 1-based first and last line of ``node``."""
    return node.start_point.row + 1, node.end_point.row + 1


def child_of_type(node: Node, *types: str) -> Node | None:
    """The first named child of ``node`` of one of ``types``."""
    return next((c for c in node.named_children if c.type in types), None)


def signature(node: Node, body: Node | None, source: bytes) -> str:
    """The declaration up to its body, on one line: ``def find(self, id: int) -> User``."""
    end = body.start_byte if body is not None else node.end_byte
    head = source[node.start_byte : end].decode("utf-8", "replace")
    if body is None:
        head = head.splitlines()[0] if head else head
    return " ".join(head.split()).rstrip(":{= ").strip()[:500]

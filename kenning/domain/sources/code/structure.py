"""What a parser finds in one source file: definitions with line ranges, and imports.

Lines are 1-based and inclusive. A definition's ``name`` is qualified inside its file
(``UserService.find`` for a method, ``Outer.Inner`` for a nested class), ``parent`` names the
definition it sits in, and ``bases`` are the names it extends or implements, as written.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class CodeLanguage(StrEnum):
    """The languages the code source reads."""

    PYTHON = "python"
    KOTLIN = "kotlin"
    JAVA = "java"
    TYPESCRIPT = "typescript"
    TSX = "tsx"
    JAVASCRIPT = "javascript"
    GO = "go"


class DefinitionKind(StrEnum):
    """What a definition is; classes, interfaces, objects, enums and structs are class nodes."""

    CLASS = "class"
    INTERFACE = "interface"
    ENUM = "enum"
    OBJECT = "object"
    STRUCT = "struct"
    FUNCTION = "function"
    METHOD = "method"

    @property
    def is_type(self) -> bool:
        """Whether the definition becomes a ``class:`` node."""
        return self not in (DefinitionKind.FUNCTION, DefinitionKind.METHOD)


@dataclass(frozen=True, slots=True)
class Definition:
    """A class-like type, a function or a method."""

    kind: DefinitionKind
    name: str
    signature: str
    start_line: int
    end_line: int
    parent: str | None = None
    bases: tuple[str, ...] = ()
    # A Go method's receiver type: its method is declared outside the type's body.
    receiver: str | None = None

    @property
    def owner(self) -> str | None:
        """The type a method belongs to: the one it sits in, or its receiver."""
        return self.parent or self.receiver

    @property
    def short_name(self) -> str:
        """The name without its enclosing definitions: ``find`` for ``UserService.find``."""
        return self.name.rsplit(".", 1)[-1]


@dataclass(frozen=True, slots=True)
class Import:
    """One imported module (``pkg.base``, ``./base``, ``com.acme.Base``, ``fmt``) and the
    names it brings in: ``Base`` or, renamed, ``Base as B`` (``from pkg.base import Base as
    B``); a default import is its local name."""

    module: str
    line: int
    names: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FileStructure:
    """One parsed file: its text, definitions (outer before inner) and imports."""

    path: str
    language: CodeLanguage
    text: str
    definitions: tuple[Definition, ...] = ()
    imports: tuple[Import, ...] = ()
    package: str = ""  # Java/Kotlin/Go package, "" where the language has none

    @property
    def line_count(self) -> int:
        """How many lines the file has."""
        return len(self.text.splitlines())

"""The GraphQL examples of README.md and of the documentation in ``docs/``, as the test
command reads them: README.md first, then each hand-written page in the order of
``mkdocs.yml``'s navigation (the pages the build generates hold no example).

An example is a fenced block whose info string starts with ``graphql``; a ``json`` block
right after it (only blank lines between) holds its variables. ``graphql expect-error``
marks an example that must answer with a top-level error. In variables, a string
``"<name>"`` stands for the value of field ``name`` (or of an alias) in an earlier answer,
and ``"<upload NAME>"`` for a file named ``NAME`` sent with the GraphQL multipart request.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from graphql import DocumentNode, OperationDefinitionNode, OperationType, parse

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MKDOCS = ROOT / "mkdocs.yml"
_FENCE = re.compile(r"^```(?P<info>[^\n`]*)\n(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
_PLACEHOLDER = re.compile(r"^<(\w+)>$")
_UPLOAD = re.compile(r"^<upload (?P<name>[\w.-]+)>$")


@dataclass(frozen=True, slots=True)
class Example:
    """One GraphQL example of the README."""

    source: str
    line: int
    document: str
    variables: dict[str, Any]
    expect_error: str | None

    @property
    def operation_document(self) -> DocumentNode:
        return parse(self.document)

    @property
    def operation(self) -> OperationDefinitionNode:
        [operation] = [d for d in self.operation_document.definitions
                       if isinstance(d, OperationDefinitionNode)]  # fmt: skip
        return operation

    @property
    def kind(self) -> OperationType:
        return self.operation.operation

    @property
    def root_fields(self) -> set[str]:
        return {s.name.value for s in self.operation.selection_set.selections
                if hasattr(s, "name")}  # fmt: skip

    def __str__(self) -> str:
        name = self.operation.name.value if self.operation.name else "?"
        return f"{self.source}:{self.line} ({name})"


def _nav_paths(entry: object) -> list[str]:
    if isinstance(entry, str):
        return [entry]
    if isinstance(entry, dict):
        return [path for value in entry.values() for path in _nav_paths(value)]
    if isinstance(entry, list):
        return [path for item in entry for path in _nav_paths(item)]
    return []


def pages() -> list[Path]:
    """README.md, then every page of ``docs/`` that is a file, in the navigation's order."""
    nav = yaml.safe_load(MKDOCS.read_text())["nav"]
    return [README, *(DOCS / path for path in _nav_paths(nav) if (DOCS / path).is_file())]


def documentation() -> str:
    """The text of README.md and of every page of ``docs/``, one after the other."""
    return "\n\n".join(page.read_text() for page in pages())


def examples(text: str | None = None, source: str = "README.md") -> list[Example]:
    """Every GraphQL example of README.md and the docs' pages, in order; of ``text`` alone
    (named ``source``) when given."""
    if text is None:
        return [
            example
            for page in pages()
            for example in examples(page.read_text(), str(page.relative_to(ROOT)))
        ]
    blocks = list(_FENCE.finditer(text))
    found = []
    for index, block in enumerate(blocks):
        info = block["info"].split()
        if not info or info[0] != "graphql":
            continue
        variables: dict[str, Any] = {}
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        if following is not None and following["info"].strip() == "json":
            between = text[block.end() : following.start()]
            if not between.strip():
                variables = json.loads(following["body"])
        line = text.count("\n", 0, block.start()) + 1
        expected = [flag.partition("=")[2] for flag in info[1:] if flag.startswith("expect-error")]
        expect = expected[0] if expected else None
        found.append(Example(source, line, block["body"], variables, expect))
    return found


def fill(value: Any, seen: dict[str, Any]) -> Any:
    """``value`` with every ``"<name>"`` replaced by the last answer's ``name``."""
    if isinstance(value, dict):
        return {k: fill(v, seen) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, seen) for v in value]
    if isinstance(value, str) and (match := _PLACEHOLDER.match(value)):
        if match[1] not in seen:
            raise AssertionError(f"no earlier answer has a field {match[1]!r}")
        return seen[match[1]]
    return value


def remember(value: Any, seen: dict[str, Any]) -> None:
    """Record every scalar field of an answer by name (later ones win)."""
    if isinstance(value, dict):
        for name, item in value.items():
            if isinstance(item, str | int | float) and not isinstance(item, bool):
                seen[name] = item
            remember(item, seen)
    elif isinstance(value, list):
        for item in value:
            remember(item, seen)


def error_members(value: Any, path: str = "data") -> list[str]:
    """Paths of union error members in an answer (objects selected with ``code``)."""
    found = []
    if isinstance(value, dict):
        if "code" in value and "message" in value:
            found.append(f"{path}: {value}")
        for name, item in value.items():
            found += error_members(item, f"{path}.{name}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += error_members(item, f"{path}[{index}]")
    return found


def uploads(value: Any, path: str = "variables") -> list[tuple[str, str]]:
    """``(object path, file name)`` of every ``"<upload NAME>"`` in the variables, as the
    multipart request's ``map`` names them (``variables.file``, ``variables.files.0``)."""
    if isinstance(value, dict):
        return [found for k, v in value.items() for found in uploads(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [found for i, v in enumerate(value) for found in uploads(v, f"{path}.{i}")]
    if isinstance(value, str) and (match := _UPLOAD.match(value)):
        return [(path, match["name"])]
    return []


def without_uploads(value: Any) -> Any:
    """``value`` with every ``"<upload NAME>"`` made null, as the spec's operations carry it."""
    if isinstance(value, dict):
        return {k: without_uploads(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_uploads(v) for v in value]
    if isinstance(value, str) and _UPLOAD.match(value):
        return None
    return value

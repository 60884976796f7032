"""The two faces translate; the use cases live in the domain (one entry per use case).

A GraphQL resolver (``kenning/resolvers/``) or an MCP tool (``kenning/mcp/``) turns its
arguments into a domain request, calls the use case's one domain entry and turns the result
into its own answer: no function there is over 25 lines (from its ``def``, decorators
excluded), and none reads the settings, which reach a use case inside the dependencies the
runtime builds. A face that grows a pre-step of its own fails here before the two faces can
drift apart.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FACES = ("kenning/resolvers", "kenning/mcp")
MAX_FACE_FUNCTION_LINES = 25


def _face_modules() -> list[tuple[str, ast.Module]]:
    return [
        (path.relative_to(ROOT).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
        for face in FACES
        for path in sorted((ROOT / face).rglob("*.py"))
    ]


def test_no_resolver_or_tool_is_over_25_lines() -> None:
    long = [
        f"{module}:{node.lineno} {node.name}: {node.end_lineno - node.lineno + 1} lines"
        for module, tree in _face_modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FACE_FUNCTION_LINES
    ]
    assert not long, "a face does more than translate (move the steps to the domain entry):\n" + (
        "\n".join(long)
    )


def test_no_face_reads_the_settings() -> None:
    reads = [
        f"{module}:{node.lineno}"
        for module, tree in _face_modules()
        for node in ast.walk(tree)
        if (isinstance(node, ast.Attribute) and node.attr == "settings")
        or (isinstance(node, ast.Name) and node.id == "settings")
    ]
    assert not reads, "settings reach a use case inside its dependencies, not its face:\n" + (
        "\n".join(reads)
    )

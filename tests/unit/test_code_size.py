"""No module over 300 lines and no function over 60 lines in kenning/ (issue 11).

A module's length is its line count. A function's length runs from its first decorator (or
its `def`) to its last line; a nested function counts inside its parent and is also checked
on its own. A justified exception is listed in EXCEPTIONS with its reason, and an exception
that is no longer needed fails too, so the list cannot rot.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "kenning"
MAX_MODULE_LINES = 300
MAX_FUNCTION_LINES = 60

# {"kenning/path.py" or "kenning/path.py::function": "reason"}
EXCEPTIONS: dict[str, str] = {
    "kenning/runtime.py": (
        "the composition root holds one thing, a factory per use case's dependencies; "
        "each is a few lines and they read as one list of what every use case runs with"
    ),
}


def _function_lengths(tree: ast.Module) -> list[tuple[str, int]]:
    """Every function's dotted name in its module and its length in lines, decorators included."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                    last = child.end_lineno or child.lineno
                    found.append((name, last - first + 1))
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def _measure() -> dict[str, int]:
    """Every module and function over its limit, keyed like EXCEPTIONS, with its length."""
    over: dict[str, int] = {}
    root = PACKAGE.parent
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        key = path.relative_to(root).as_posix()
        module_lines = len(source.splitlines())
        if module_lines > MAX_MODULE_LINES:
            over[key] = module_lines
        for name, length in _function_lengths(ast.parse(source, filename=str(path))):
            if length > MAX_FUNCTION_LINES:
                over[f"{key}::{name}"] = length
    return over


def test_no_module_or_function_over_its_limit() -> None:
    over = _measure()
    offenders = {key: length for key, length in over.items() if key not in EXCEPTIONS}
    report = "\n".join(f"  {key}: {length} lines" for key, length in sorted(offenders.items()))
    assert not offenders, (
        f"over {MAX_MODULE_LINES} lines per module or {MAX_FUNCTION_LINES} per function "
        f"(split it, or list it in EXCEPTIONS with a reason):\n{report}"
    )


def test_every_exception_is_still_needed() -> None:
    over = _measure()
    stale = sorted(key for key in EXCEPTIONS if key not in over)
    assert not stale, f"no longer over the limit; remove from EXCEPTIONS: {stale}"


def test_the_measure_counts_decorators_and_nested_functions() -> None:
    source = "\n".join(
        [
            "@decorator",
            "@other(",
            "    1,",
            ")",
            "def outer():",
            "    def inner():",
            "        return 1",
            "    return inner",
            "class Thing:",
            "    async def method(self):",
            "        pass",
        ]
    )
    lengths = dict(_function_lengths(ast.parse(source)))
    assert lengths == {"outer": 8, "outer.inner": 2, "Thing.method": 2}

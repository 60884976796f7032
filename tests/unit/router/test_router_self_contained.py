"""The router (demo fakes included) imports nothing of the rest of Kenning."""

from __future__ import annotations

import ast
from pathlib import Path

import kenning.router

ROUTER = Path(kenning.router.__file__).parent


def kenning_imports(source: Path) -> set[str]:
    """Absolute ``kenning.*`` modules a file imports (relative imports stay inside)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text(), str(source))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("kenning"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found.update(m for m in [node.module or ""] if m.startswith("kenning"))
    return found


def test_no_router_module_imports_kenning_outside_the_router() -> None:
    files = sorted(ROUTER.rglob("*.py"))
    assert ROUTER / "demo" / "fake_ollama.py" in files
    outside = {
        f"{path.relative_to(ROUTER)}: {module}"
        for path in files
        for module in kenning_imports(path)
        if module != "kenning.router" and not module.startswith("kenning.router.")
    }
    assert outside == set()

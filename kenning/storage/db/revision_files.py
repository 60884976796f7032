"""One migration file loaded as a module, for what a later revision or a benchmark reuses
from it (a statement, a trigger function a downgrade restores)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

VERSIONS = Path(__file__).resolve().parents[3] / "migrations" / "versions"


def load_revision(filename: str) -> ModuleType:
    """The module of ``migrations/versions/<filename>``, e.g. ``load_revision("0014_bm25.py")``."""
    path = VERSIONS / filename
    spec = importlib.util.spec_from_file_location(f"kenning_revision_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

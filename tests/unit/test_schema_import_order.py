"""The schema builds whichever of its modules a process imports first.

Strawberry turns a plain enum a field names into a GraphQL enum when the type is defined;
a module that registers the same enum with its description afterwards makes a second enum
of that name, and ``build_schema`` fails (``DuplicatedTypeName``). Each feature package
registers its enums in its ``__init__`` so no import order can do that; this imports every
module of ``kenning.schema`` in name order and in reverse, each in a fresh interpreter."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import pytest

import kenning.schema

MODULES = sorted(m.name for m in pkgutil.walk_packages(kenning.schema.__path__, "kenning.schema."))


@pytest.mark.parametrize("order", ["forward", "reverse"])
def test_the_schema_builds_after_any_import_order(order: str) -> None:
    modules = MODULES if order == "forward" else MODULES[::-1]
    imports = [f"importlib.import_module({name!r})" for name in modules]
    build = "importlib.import_module('kenning.schema.build').build_schema()"
    script = "\n".join(["import importlib", *imports, build])
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]

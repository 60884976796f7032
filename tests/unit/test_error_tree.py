"""``kenning/domain/errors.py``'s docstring draws the whole exception tree: every
``KenningError`` subclass anywhere in ``kenning/`` under its parent, with its code, and no
class that no longer exists. A new error is drawn there, or this fails."""

from __future__ import annotations

import importlib
import pkgutil
import re

import kenning
from kenning.domain import errors

BRANCH = re.compile(r"^(?P<indent>(?:[│ ] {3})*)[├└]── (?P<name>\w+)\s+(?P<code>[A-Z_]+)")


def _every_module() -> None:
    for module in pkgutil.walk_packages(kenning.__path__, "kenning."):
        if not module.name.endswith("__main__"):  # runs the command line
            importlib.import_module(module.name)


def _subclasses(cls: type[errors.KenningError]) -> list[type[errors.KenningError]]:
    found: list[type[errors.KenningError]] = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def _drawn() -> dict[str, tuple[str | None, str]]:
    """Each class the docstring draws: its parent's name and its code."""
    assert errors.__doc__ is not None
    drawn: dict[str, tuple[str | None, str]] = {}
    parents = ["KenningError"]
    for line in errors.__doc__.splitlines():
        match = BRANCH.match(line)
        if match is None:
            continue
        depth = len(match["indent"]) // 4
        del parents[depth + 1 :]
        drawn[match["name"]] = (parents[depth], match["code"])
        parents.append(match["name"])
    return drawn


def test_every_kenning_error_is_drawn_under_its_parent_with_its_code() -> None:
    _every_module()
    classes = {cls.__name__: cls for cls in _subclasses(errors.KenningError)}
    drawn = _drawn()
    assert sorted(set(classes) - set(drawn)) == [], "errors.py's tree does not draw these"
    assert sorted(set(drawn) - set(classes)) == [], "errors.py's tree draws classes that are gone"
    for name, (parent, code) in drawn.items():
        cls = classes[name]
        assert cls.__bases__[0].__name__ == parent, f"{name} is drawn under {parent}"
        assert cls.code.value == code, f"{name}'s code is {cls.code.value}, drawn as {code}"

"""Which file of the repository an import or a base class names, when one does.

Python modules map to ``a/b.py`` or ``a/b/__init__.py`` (relative ones from the importing
file's package), JavaScript and TypeScript relative specifiers to the file with one of the
usual extensions or an ``index`` file, Java and Kotlin imports to the file named after the
class under its package path. Go imports name packages (directories), never one file: they
stay modules, as does anything else no file answers.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from kenning.domain.sources.code.structure import CodeLanguage, FileStructure, Import

_SCRIPT_SUFFIXES = (".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts")
_JVM = (CodeLanguage.JAVA, CodeLanguage.KOTLIN)


class PathIndex:
    """The repository's file paths, indexed for import resolution."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.paths = frozenset(paths)
        self._by_stem: dict[str, list[str]] = {}
        for path in self.paths:
            if path.endswith((".java", ".kt")):
                stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
                self._by_stem.setdefault(stem, []).append(path)

    def jvm_class_file(self, qualified: str) -> str | None:
        """The ``.java``/``.kt`` file of ``com.acme.Base`` (path ends in ``com/acme/Base``)."""
        suffix = qualified.replace(".", "/")
        stem = suffix.rsplit("/", 1)[-1]
        bare = (p.rsplit(".", 1)[0] for p in self._by_stem.get(stem, ()))
        matches = [b for b in bare if b == suffix or b.endswith("/" + suffix)]
        if len(matches) != 1:
            return None
        return next(p for p in self._by_stem[stem] if p.rsplit(".", 1)[0] == matches[0])

    def first(self, candidates: Iterable[str]) -> str | None:
        """The first of ``candidates`` that is a file of the repository."""
        return next((c for c in candidates if c in self.paths), None)


def import_file(structure: FileStructure, item: Import, index: PathIndex) -> str | None:
    """The repository file ``item`` imports, or ``None`` for a module outside it."""
    language = structure.language
    if language is CodeLanguage.PYTHON:
        return _python_file(structure.path, item.module, index)
    if language in _JVM:
        return index.jvm_class_file(item.module)
    if language is CodeLanguage.GO or not item.module.startswith("."):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(structure.path), item.module))
    if joined.startswith(".."):
        return None
    bare = joined.rsplit(".", 1)[0] if joined.endswith(_SCRIPT_SUFFIXES) else joined
    candidates = [joined] + [bare + s for s in _SCRIPT_SUFFIXES]
    return index.first(candidates + [f"{joined}/index{s}" for s in _SCRIPT_SUFFIXES])


def _python_file(path: str, module: str, index: PathIndex) -> str | None:
    dots = len(module) - len(module.lstrip("."))
    if dots:
        base = posixpath.dirname(path).split("/") if "/" in path else []
        base = base[: len(base) - (dots - 1)] if dots > 1 else base
        parts = [*base, *filter(None, module[dots:].split("."))]
    else:
        parts = module.split(".")
    stem = "/".join(parts)
    candidates = [f"{stem}.py", f"{stem}/__init__.py"] if stem else []
    return index.first(candidates)


def imported_name(item: Import, local: str) -> str | None:
    """The name ``local`` has in the module ``item`` imports it from, if ``item`` binds it."""
    for name in item.names:
        original, _, alias = name.partition(" as ")
        if (alias or original) == local:
            return original
    return None

"""Aliases that let a short reference meet the code graph's canonical nodes.

A ticket says ``file:UserService.kt`` or ``class:UserService``; the code graph keys files
and classes per repository and branch. For one ingested branch, each file name and class
name that only one file or class carries there becomes an alias of its canonical key, and
so does each full path (``file:src/UserService.kt``, the key git commit ingests use). A name
two files share is left alone: an alias that guessed could not be undone.
"""

from __future__ import annotations

from collections.abc import Iterable

from kenning.domain.ingestion.node_keys import canonicalize_key, normalize_key
from kenning.domain.sources.code import code_keys as keys
from kenning.domain.sources.code.structure import FileStructure


def code_aliases(
    repository: str, branch: str, paths: Iterable[str], structures: Iterable[FileStructure] = ()
) -> dict[str, str]:
    """Alias key → canonical key for the branch's ``paths`` and the classes of ``structures``."""
    by_alias: dict[str, set[str]] = {}
    for path in paths:
        target = keys.file_key(repository, branch, path)
        for alias in (f"file:{path}", f"file:{path.rsplit('/', 1)[-1]}"):
            by_alias.setdefault(canonicalize_key(normalize_key(alias)), set()).add(target)
    for structure in structures:
        for definition in structure.definitions:
            if definition.kind.is_type:
                target = keys.class_key(repository, branch, structure.path, definition.name)
                by_alias.setdefault(keys.class_key_bare(definition.short_name), set()).add(target)
    return {
        alias: next(iter(targets))
        for alias, targets in sorted(by_alias.items())
        if len(targets) == 1 and alias not in targets
    }

"""Canonical node keys of the code graph, per repository and branch.

``repo:<repo>``, ``branch:<repo>/<branch>`` (the form git commit ingests use, so both meet),
``file:<repo>@<branch>/<path>``, ``class:<repo>@<branch>/<path>#<Class>``,
``method:<repo>@<branch>/<path>#<Class>.<method>``, ``function:<repo>@<branch>/<path>#<name>``
and ``module:<name>`` for an import that names no file of the repository. Git forbids a
branch ``a`` next to ``a/b``, so ``<branch>/<path>`` never reads two ways. Keys are returned
normalized (lower case), exactly as the graph stores them.

Example: ``file_key("shop", "main", "src/UserService.kt") == "file:shop@main/src/userservice.kt"``.
"""

from __future__ import annotations

import re

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.node_keys import canonicalize_key, normalize_key
from kenning.domain.sources.code.structure import Definition, DefinitionKind

_REPOSITORY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
# git check-ref-format, minus what a key cannot carry: no spaces, ':', '~', '^', '?', '*', '['.
_BRANCH = re.compile(r"[A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)*")


def check_repository(repository: str) -> str:
    """``repository`` when it is a usable name; ``ValidationError`` otherwise."""
    if not _REPOSITORY.fullmatch(repository):
        raise ValidationError(
            "repository must be 1-100 letters, digits, '.', '_' or '-', starting with a "
            "letter or digit",
            field="repository",
        )
    return repository


def check_branch(branch: str) -> str:
    """``branch`` when it is a usable branch name; ``ValidationError`` otherwise."""
    if len(branch) > 200 or not _BRANCH.fullmatch(branch) or ".." in branch:
        raise ValidationError(
            "branch must be a git branch name of letters, digits, '.', '_', '-' and '/'",
            field="branch",
        )
    return branch


def check_path(path: str) -> str:
    """``path`` when it is a relative repository path; ``ValidationError`` otherwise."""
    parts = path.split("/")
    if not path or path.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValidationError(
            f"{path!r} is not a relative path inside the repository", field="path"
        )
    if any(ord(c) < 32 for c in path) or len(path) > 400:
        raise ValidationError("path has control characters or is too long", field="path")
    return path


def _key(raw: str) -> str:
    return canonicalize_key(normalize_key(raw))


def repo_key(repository: str) -> str:
    """``repo:<repository>``."""
    return _key(f"repo:{repository}")


def branch_key(repository: str, branch: str) -> str:
    """``branch:<repository>/<branch>``."""
    return _key(f"branch:{repository}/{branch}")


def file_key(repository: str, branch: str, path: str) -> str:
    """``file:<repository>@<branch>/<path>``."""
    return _key(f"file:{repository}@{branch}/{path}")


def definition_key(repository: str, branch: str, path: str, definition: Definition) -> str:
    """The key of a class-like type, method or function defined in ``path``."""
    if definition.kind.is_type:
        namespace = "class"
    elif definition.kind is DefinitionKind.METHOD:
        namespace = "method"
    else:
        namespace = "function"
    return _key(f"{namespace}:{repository}@{branch}/{path}#{definition.name}")


def class_key(repository: str, branch: str, path: str, name: str) -> str:
    """``class:<repository>@<branch>/<path>#<name>``: a type defined in ``path``."""
    return _key(f"class:{repository}@{branch}/{path}#{name}")


def module_key(module: str) -> str:
    """``module:<module>``: an import no file of the repository answers."""
    return _key(f"module:{module}")


def source_urn(repository: str, branch: str, path: str) -> str:
    """The source one file's knowledge is stored under: ``code:<repo>@<branch>:<path>``."""
    return f"code:{repository}@{branch}:{path}"


def class_key_bare(name: str) -> str:
    """``class:<name>``: a base class no file of the repository defines (``Exception``)."""
    return _key(f"class:{name}")

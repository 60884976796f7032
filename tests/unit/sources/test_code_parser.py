"""tree-sitter structure per language, read from a generated git repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenning.domain.sources.code import CodeLanguage, FileStructure, parse_files, select_files
from kenning.domain.sources.code.selection import skip_reason
from kenning.storage.sources.code import GitCli, TreeSitterParser
from tests.support.code_repo import CodeRepo, make_code_repo


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> CodeRepo:
    return make_code_repo(tmp_path_factory.mktemp("code") / "shop")


@pytest.fixture(scope="module")
def parsed(repo: CodeRepo) -> dict[str, FileStructure]:
    git = GitCli(repo.root)
    files = select_files(git.tracked_files(repo.first))
    structures, _ = parse_files(git.read(repo.first, files), TreeSitterParser())
    return {s.path: s for s in structures}


def _defs(structure: FileStructure) -> list[tuple[str, str, int, int, tuple[str, ...]]]:
    return [(d.kind.value, d.name, d.start_line, d.end_line, d.bases)
            for d in structure.definitions]  # fmt: skip


def test_python_classes_methods_functions_and_imports(parsed: dict[str, FileStructure]) -> None:
    service = parsed["app/service.py"]
    assert service.language is CodeLanguage.PYTHON
    assert _defs(service) == [
        ("class", "UserService", 5, 12, ("B",)),
        ("method", "UserService.find", 8, 9, ()),
        ("method", "UserService.save", 11, 12, ()),
        ("function", "helper", 15, 16, ()),
    ]
    assert service.definitions[1].signature == "def find(self, user_id: int) -> dict"
    assert [(i.module, i.line, i.names) for i in service.imports] == [
        ("app.base", 1, ("Base as B",)),
        ("json", 2, ()),
    ]


def test_kotlin_class_with_supertypes_and_interface(parsed: dict[str, FileStructure]) -> None:
    kotlin = parsed["src/main/kotlin/com/acme/UserService.kt"]
    assert kotlin.package == "com.acme"
    assert _defs(kotlin) == [
        ("class", "UserService", 6, 12, ("BaseService", "Auditable")),
        ("method", "UserService.find", 7, 7, ()),
        ("method", "UserService.save", 9, 11, ()),
        ("interface", "Auditable", 14, 16, ()),
        ("method", "Auditable.audit", 15, 15, ()),
    ]
    assert kotlin.definitions[1].signature == "fun find(id: Long): User?"
    assert [i.module for i in kotlin.imports] == [
        "com.acme.BaseService",
        "kotlinx.coroutines.launch",
    ]


def test_java_extends_and_implements(parsed: dict[str, FileStructure]) -> None:
    java = parsed["src/main/java/com/acme/Order.java"]
    assert _defs(java) == [
        ("class", "Order", 5, 11, ("Entity", "Comparable<Order>")),
        ("method", "Order.compareTo", 6, 6, ()),
        ("method", "Order.lines", 8, 10, ()),
    ]
    assert java.definitions[2].signature == "public List<String> lines()"
    assert [(i.module, i.names) for i in java.imports] == [("java.util.List", ("List",))]


def test_typescript_and_javascript(parsed: dict[str, FileStructure]) -> None:
    ts = parsed["web/service.ts"]
    assert _defs(ts) == [
        ("class", "WebService", 4, 8, ("Base",)),
        ("method", "WebService.load", 5, 7, ()),
        ("function", "render", 10, 12, ()),
    ]
    assert [(i.module, i.names) for i in ts.imports] == [("./base", ("Base",)), ("path", ("path",))]
    js = parsed["web/util.js"]
    assert _defs(js) == [
        ("class", "Reader", 3, 7, ()),
        ("method", "Reader.read", 4, 6, ()),
        ("function", "shout", 9, 9, ()),
    ]
    assert [(i.module, i.names) for i in js.imports] == [("fs", ("fs",))]


def test_go_struct_embedding_and_receiver_methods(parsed: dict[str, FileStructure]) -> None:
    go = parsed["cmd/server.go"]
    assert go.package == "main"
    assert _defs(go) == [
        ("struct", "Server", 8, 11, ("Base",)),
        ("method", "Server.Start", 13, 16, ()),
        ("function", "main", 18, 20, ()),
    ]
    assert go.definitions[1].receiver == "Server"
    assert [i.module for i in go.imports] == ["fmt", "net/http"]


def test_selection_skips_what_is_not_code(repo: CodeRepo) -> None:
    files = select_files(GitCli(repo.root).tracked_files(repo.first))
    assert "README.md" not in files and "assets/logo.bin" not in files
    assert "web/app.min.js" not in files  # minified bundle by name
    assert len(files) == 10
    assert select_files(GitCli(repo.root).tracked_files(repo.first), max_bytes=100) == [
        "app/base.py", "src/main/java/com/acme/Entity.java",
        "src/main/kotlin/com/acme/BaseService.kt", "web/base.ts",
    ]  # fmt: skip
    assert skip_reason(b"x\x00y") == "binary"
    assert skip_reason(b"var a=1;" * 400) == "minified"
    assert skip_reason(b"\xff\xfe") == "not utf-8"
    assert skip_reason(b"a" * 20, max_bytes=10) == "too large"
    assert skip_reason(b"def f():\n    pass\n") is None


def test_broken_source_still_yields_what_parses(tmp_path: Path) -> None:
    broken = b"class Ok:\n    def fine(self):\n        pass\n\ndef broken(:\n"
    structure = TreeSitterParser().parse("x.py", CodeLanguage.PYTHON, broken)
    assert ("class", "Ok") in [(d.kind.value, d.name) for d in structure.definitions]

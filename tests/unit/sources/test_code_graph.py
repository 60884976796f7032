"""One file → one GraphRequest: keys per branch, edges with evidence, chunks by definition,
aliases and the incremental plan."""

from __future__ import annotations

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.git_commits import FileChange
from kenning.domain.ingestion.graph_items import GraphRequest, check_items
from kenning.domain.ingestion.node_keys import parse_key
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.sources.code import (
    CodeContext,
    CodeLanguage,
    Definition,
    DefinitionKind,
    FileStructure,
    PathIndex,
    code_aliases,
    code_plan,
    file_request,
)
from kenning.domain.sources.code.code_chunks import code_pieces
from kenning.domain.sources.code.code_graph import EMBEDDING_CHARS, embedding_text
from kenning.domain.sources.code.code_keys import file_key
from kenning.storage.sources.code import GitCli, TreeSitterParser
from tests.support.code_repo import FIRST, make_code_repo

SCOPE = Scope("acme", "", "")
PATHS = PathIndex(p for p in FIRST if not p.endswith((".md", ".bin", ".min.js")))
CONTEXT = CodeContext("shop", "main", SCOPE, PATHS)


def _request(path: str, language: CodeLanguage) -> GraphRequest:
    structure = TreeSitterParser().parse(path, language, FIRST[path].encode())
    request = file_request(structure, CONTEXT)
    assert request is not None
    return request


def _edges(request: GraphRequest) -> dict[tuple[str, str, str], tuple[str, ...]]:
    return {(e.from_key, e.edge_type, e.to_key): e.evidence_chunk_ids for e in request.edges}


def test_kotlin_file_graph_keys_edges_and_evidence() -> None:
    request = _request("src/main/kotlin/com/acme/UserService.kt", CodeLanguage.KOTLIN)
    base = "shop@main/src/main/kotlin/com/acme"
    assert request.source_urn == "code:shop@main:src/main/kotlin/com/acme/UserService.kt"
    pieces = {p.ref: p for p in request.pieces}
    assert _edges(request) == {
        ("repo:shop", "contains", "branch:shop/main"): ("file:1-4",),
        ("branch:shop/main", "contains", f"file:{base}/userservice.kt"): ("file:1-4",),
        (f"file:{base}/userservice.kt", "contains", f"class:{base}/userservice.kt#userservice"):
            ("UserService:6-6",),
        (f"class:{base}/userservice.kt#userservice", "has_method",
         f"method:{base}/userservice.kt#userservice.find"): ("UserService.find:7-7",),
        (f"class:{base}/userservice.kt#userservice", "has_method",
         f"method:{base}/userservice.kt#userservice.save"): ("UserService.save:9-11",),
        (f"class:{base}/userservice.kt#userservice", "extends",
         f"class:{base}/baseservice.kt#baseservice"): ("UserService:6-6",),
        (f"class:{base}/userservice.kt#userservice", "extends",
         f"class:{base}/userservice.kt#auditable"): ("UserService:6-6",),
        (f"file:{base}/userservice.kt", "contains", f"class:{base}/userservice.kt#auditable"):
            ("Auditable:14-14",),
        (f"class:{base}/userservice.kt#auditable", "has_method",
         f"method:{base}/userservice.kt#auditable.audit"): ("Auditable.audit:15-15",),
        (f"file:{base}/userservice.kt", "imports", f"file:{base}/baseservice.kt"): ("file:1-4",),
        (f"file:{base}/userservice.kt", "imports", "module:kotlinx.coroutines.launch"):
            ("file:1-4",),
    }  # fmt: skip
    assert pieces["UserService.save:9-11"].content == (
        "    suspend fun save(user: User) {\n        repo.put(user)\n    }"
    )
    assert "import com.acme.BaseService" in pieces["file:1-4"].content
    embedded = pieces["UserService.find:7-7"].embedding_text or ""
    assert embedded.startswith(
        "kotlin src/main/kotlin/com/acme/UserService.kt:7-7 UserService.find"
    )
    nodes = {n.key: n for n in request.nodes}
    method = nodes[f"method:{base}/userservice.kt#userservice.find"]
    assert method.properties["signature"] == "fun find(id: Long): User?"
    assert (method.properties["startLine"], method.properties["endLine"]) == (7, 7)


@pytest.mark.parametrize(
    ("path", "language", "edge"),
    [
        ("app/service.py", CodeLanguage.PYTHON,
         ("class:shop@main/app/service.py#userservice", "extends",
          "class:shop@main/app/base.py#base")),
        ("app/service.py", CodeLanguage.PYTHON,
         ("file:shop@main/app/service.py", "imports", "file:shop@main/app/base.py")),
        ("src/main/java/com/acme/Order.java", CodeLanguage.JAVA,
         ("class:shop@main/src/main/java/com/acme/order.java#order", "extends",
          "class:shop@main/src/main/java/com/acme/entity.java#entity")),
        ("src/main/java/com/acme/Order.java", CodeLanguage.JAVA,
         ("class:shop@main/src/main/java/com/acme/order.java#order", "extends",
          "class:comparable")),
        ("web/service.ts", CodeLanguage.TYPESCRIPT,
         ("class:shop@main/web/service.ts#webservice", "extends",
          "class:shop@main/web/base.ts#base")),
        ("web/service.ts", CodeLanguage.TYPESCRIPT,
         ("file:shop@main/web/service.ts", "imports", "file:shop@main/web/base.ts")),
        ("web/util.js", CodeLanguage.JAVASCRIPT,
         ("file:shop@main/web/util.js", "imports", "module:fs")),
        ("cmd/server.go", CodeLanguage.GO,
         ("class:shop@main/cmd/server.go#server", "has_method",
          "method:shop@main/cmd/server.go#server.start")),
        ("cmd/server.go", CodeLanguage.GO,
         ("file:shop@main/cmd/server.go", "imports", "module:net/http")),
    ],
)  # fmt: skip
def test_edges_per_language(path: str, language: CodeLanguage, edge: tuple[str, str, str]) -> None:
    request = _request(path, language)
    evidence = _edges(request)[edge]
    refs = {p.ref for p in request.pieces}
    assert evidence and set(evidence) <= refs


@pytest.mark.parametrize("path", [p for p in PATHS.paths])
def test_every_request_passes_the_ingest_checks(path: str) -> None:
    language = {"py": CodeLanguage.PYTHON, "kt": CodeLanguage.KOTLIN, "java": CodeLanguage.JAVA,
                "ts": CodeLanguage.TYPESCRIPT, "js": CodeLanguage.JAVASCRIPT,
                "go": CodeLanguage.GO}[path.rsplit(".", 1)[1]]  # fmt: skip
    request = _request(path, language)
    items = check_items(request, SecretPolicy.REJECT)
    assert items.rejected == []
    assert set(items.nodes) == {n.key for n in request.nodes}
    for node in request.nodes:
        assert parse_key(node.key).key == node.key


def test_long_definition_is_split_at_line_boundaries() -> None:
    body = "".join(f"    value_{i} = {i} * 2  # a line of some length\n" for i in range(80))
    text = f"import os\n\n\ndef long():\n{body}    return 0\n"
    structure = FileStructure(
        "big.py", CodeLanguage.PYTHON, text,
        (Definition(DefinitionKind.FUNCTION, "long", "def long()", 4, 85),),
    )  # fmt: skip
    pieces = code_pieces(structure, max_chars=500)
    assert pieces[0].ref == "file:1-1"
    parts = [p for p in pieces if p.symbol == "long"]
    assert len(parts) > 5 and all(len(p.content) <= 500 for p in parts)
    assert parts[0].start_line == 4 and parts[-1].end_line == 85
    lines = text.splitlines()
    for part in parts:
        assert part.content == "\n".join(lines[part.start_line - 1 : part.end_line])
    assert [b.start_line for b in parts[1:]] == [a.end_line + 1 for a in parts[:-1]]


def test_blank_file_makes_no_request() -> None:
    assert file_request(FileStructure("e.py", CodeLanguage.PYTHON, "\n\n"), CONTEXT) is None


def test_bad_names_are_refused_with_their_field() -> None:
    with pytest.raises(ValidationError) as repo:
        CodeContext("shop; drop", "main", SCOPE)
    assert repo.value.field == "repository"
    with pytest.raises(ValidationError) as branch:
        CodeContext("shop", "main:x", SCOPE)
    assert branch.value.field == "branch"
    with pytest.raises(ValidationError) as path:
        file_request(FileStructure("../etc/x.py", CodeLanguage.PYTHON, "x = 1\n"), CONTEXT)
    assert path.value.field == "path"


def test_aliases_meet_short_references_only_when_unambiguous() -> None:
    structures = [TreeSitterParser().parse(p, CodeLanguage.KOTLIN, FIRST[p].encode())
                  for p in PATHS.paths if p.endswith(".kt")]  # fmt: skip
    aliases = code_aliases("shop", "main", PATHS.paths, structures)
    target = file_key("shop", "main", "src/main/kotlin/com/acme/UserService.kt")
    assert aliases["file:userservice.kt"] == target
    assert aliases["file:src/main/kotlin/com/acme/userservice.kt"] == target
    assert aliases["class:auditable"].endswith("userservice.kt#auditable")
    assert "file:base.py" in aliases and "file:service.py" in aliases
    two = code_aliases("shop", "main", ["a/Util.kt", "b/Util.kt"])
    assert "file:util.kt" not in two and "file:a/util.kt" in two


def test_incremental_plan_from_the_repository(tmp_path: object) -> None:
    from pathlib import Path

    repo = make_code_repo(Path(str(tmp_path)) / "shop")
    git = GitCli(repo.root)
    selected = [f.path for f in git.tracked_files(repo.second) if f.path.endswith((".py", ".ts"))]
    full = code_plan("shop", "main", last_commit=None, current_commit=repo.first, selected=["a.py"])
    assert (full.ingest, full.purge, full.full) == (("a.py",), (), True)
    same = code_plan("shop", "main", last_commit=repo.second, current_commit=repo.second,
                     selected=selected)  # fmt: skip
    assert same.empty
    plan = code_plan("shop", "main", last_commit=repo.first, current_commit=repo.second,
                     selected=selected, changes=git.changes(repo.first, repo.second))  # fmt: skip
    assert plan.ingest == ("app/service.py", "web/service.ts", "web/shared.ts")
    assert plan.purge == ("code:shop@main:web/base.ts", "code:shop@main:web/util.js")
    grown = code_plan("shop", "main", last_commit="a" * 40, current_commit="b" * 40,
                      selected=[], changes=[FileChange("big.py", "M")])  # fmt: skip
    assert grown.purge == ("code:shop@main:big.py",) and grown.ingest == ()
    with pytest.raises(ValidationError):
        code_plan("shop", "main", last_commit="a" * 40, current_commit="b" * 40,
                  selected=[], changes=[FileChange("x.py", "X")])  # fmt: skip


def test_git_refuses_option_like_commits(tmp_path: object) -> None:
    from pathlib import Path

    repo = make_code_repo(Path(str(tmp_path)) / "shop")
    with pytest.raises(ValidationError):
        GitCli(repo.root).changes("--output=/tmp/x", repo.second)
    assert GitCli(repo.root).branch() == "main"
    assert GitCli(repo.root).head() == repo.second


def test_a_pieces_vector_reads_its_heading_and_first_lines_cut_at_a_line_end() -> None:
    heading = "python app/service.py:1-40 UserService.save"
    body = "def save(self, user):\n" + "".join(f"    line_{i} = {i}\n" for i in range(60))
    short = embedding_text(heading, "def f(x):\n    return x")
    assert short == f"{heading}\ndef f(x):\n    return x"
    cut = embedding_text(heading, body)
    assert len(cut) <= EMBEDDING_CHARS and f"{heading}\n{body}".startswith(cut)
    assert cut.startswith(f"{heading}\ndef save(self, user):\n") and cut.endswith("line_15 = 15")
    one_line = embedding_text(heading, "x" * 2_000)
    assert one_line == f"{heading}\n" + "x" * (EMBEDDING_CHARS - len(heading) - 1)

"""One parsed file as one structured ingest (``GraphRequest``), under its own source.

Nodes: the repository, the branch, the file, its classes (interfaces, objects, enums and
structs too), methods and functions, plus the files, classes and modules its imports and
base classes name. Edges, each citing the code piece that shows it: ``contains`` (repo →
branch → file → class or function, class → nested class), ``has_method`` (class → method),
``imports`` (file → file or module) and ``extends`` (class → class). Re-ingesting the file
replaces exactly what its previous version stored; purging its source removes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from kenning.domain.access.scope import Scope
from kenning.domain.ingestion.graph_items import MAX_ITEMS, GraphPiece, GraphRequest
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord
from kenning.domain.sources.code import code_keys as keys
from kenning.domain.sources.code.code_chunks import (
    DEFAULT_MAX_CHARS,
    CodePiece,
    code_pieces,
    piece_at,
)
from kenning.domain.sources.code.import_targets import PathIndex, import_file, imported_name
from kenning.domain.sources.code.selection import language_for_path
from kenning.domain.sources.code.structure import (
    CodeLanguage,
    Definition,
    DefinitionKind,
    FileStructure,
)

CODE_KIND = "code"
EXTRACTED_BY = {"extractedBy": "tree-sitter"}


# The source kind of every file a repository ingest stores.
CODE_SOURCE_KIND = "code"
# What a piece's vector is computed from: its heading (language, path, lines, symbol) and
# its first lines up to this many characters, cut at a line end. A definition's first lines
# hold its signature and docstring; its whole body stays in the chunk's text, which keyword
# search reads. The default model reads at most 256 word pieces anyway, and embedding is
# most of a repository ingest's time on a CPU: the measurement is on the Benchmarks page
# (``bench.code --embedder local``).
EMBEDDING_CHARS = 320


@dataclass(frozen=True, slots=True)
class CodeContext:
    """Where files come from and where their knowledge goes."""

    repository: str
    branch: str
    scope: Scope
    paths: PathIndex = field(default_factory=lambda: PathIndex(()))
    max_chars: int = DEFAULT_MAX_CHARS
    connection_id: str | None = None
    priority: int = 5
    # The commit's author date: what the files say held from then (None: when stored).
    observed_at: datetime | None = None

    def __post_init__(self) -> None:
        keys.check_repository(self.repository)
        keys.check_branch(self.branch)


class _Graph:
    """Nodes and edges collected for one file, each once."""

    def __init__(self) -> None:
        self.nodes: dict[str, NodeRecord] = {}
        self.edges: dict[tuple[str, str, str], EdgeRecord] = {}

    def node(self, key: str, kind: str, properties: dict[str, object]) -> None:
        if key not in self.nodes:
            self.nodes[key] = NodeRecord(key, kind, properties)

    def edge(self, source: str, edge_type: str, target: str, piece: CodePiece) -> None:
        if source != target and (source, edge_type, target) not in self.edges:
            self.edges[(source, edge_type, target)] = EdgeRecord(
                source, edge_type, target, (piece.ref,), EXTRACTED_BY
            )


def file_request(structure: FileStructure, context: CodeContext) -> GraphRequest | None:
    """The file's ``GraphRequest``, or ``None`` when it holds no code (blank lines only)."""
    path = keys.check_path(structure.path)
    pieces = code_pieces(structure, context.max_chars)
    if not pieces:
        return None
    repo, branch = context.repository, context.branch
    graph = _Graph()
    head, here = pieces[0], keys.file_key(repo, branch, path)
    graph.node(keys.repo_key(repo), "repo", {"name": repo})
    graph.node(keys.branch_key(repo, branch), "branch", {"name": branch, "repository": repo})
    graph.node(here, "file", _file_properties(context, path, structure.language))
    graph.edge(keys.repo_key(repo), "contains", keys.branch_key(repo, branch), head)
    graph.edge(keys.branch_key(repo, branch), "contains", here, head)
    _definitions(structure, context, pieces, graph)
    _imports(structure, context, pieces, graph)
    request = GraphRequest(
        source_urn=keys.source_urn(repo, branch, path),
        scope=context.scope,
        kind=CODE_KIND,
        pieces=tuple(_piece(structure, p) for p in pieces),
        nodes=tuple(graph.nodes.values()),
        edges=tuple(graph.edges.values()),
        connection_id=context.connection_id,
        source_kind=CODE_SOURCE_KIND,
        priority=context.priority,
        observed_at=context.observed_at,
    )
    return request if len(pieces) + len(graph.nodes) + len(graph.edges) <= MAX_ITEMS else None


def _piece(structure: FileStructure, piece: CodePiece) -> GraphPiece:
    where = f"{structure.path}:{piece.start_line}-{piece.end_line}"
    heading = f"{structure.language.value} {where} {piece.symbol}".rstrip()
    metadata: dict[str, object] = {
        "path": structure.path,
        "language": structure.language.value,
        "symbol": piece.symbol,
        "startLine": piece.start_line,
        "endLine": piece.end_line,
    }
    return GraphPiece(
        piece.ref,
        piece.content,
        tags=("code", structure.language.value),
        embedding_text=embedding_text(heading, piece.content),
        metadata=metadata,
    )


def _file_properties(
    context: CodeContext, path: str, language: CodeLanguage | None
) -> dict[str, object]:
    properties: dict[str, object] = {
        "path": path,
        "name": path.rsplit("/", 1)[-1],
        "repository": context.repository,
        "branch": context.branch,
    }
    if language is not None:
        properties["language"] = language.value
    return properties


def _evidence(pieces: list[CodePiece], definition: Definition) -> CodePiece:
    own = [p for p in pieces if p.symbol == definition.name]
    return own[0] if own else piece_at(pieces, definition.start_line)


def _definitions(
    structure: FileStructure, context: CodeContext, pieces: list[CodePiece], graph: _Graph
) -> None:
    repo, branch, path = context.repository, context.branch, structure.path
    here = keys.file_key(repo, branch, path)
    types = {d.name for d in structure.definitions if d.kind.is_type}
    for definition in structure.definitions:
        key = keys.definition_key(repo, branch, path, definition)
        evidence = _evidence(pieces, definition)
        kind = "class" if definition.kind.is_type else key.split(":", 1)[0]
        graph.node(
            key,
            kind,
            {
                "name": definition.short_name,
                "qualifiedName": definition.name,
                "kind": definition.kind.value,
                "signature": definition.signature[:1000],
                "path": path,
                "language": structure.language.value,
                "startLine": definition.start_line,
                "endLine": definition.end_line,
            },
        )
        owner = definition.owner if definition.owner in types else None
        if definition.kind is DefinitionKind.METHOD and owner:
            graph.edge(keys.class_key(repo, branch, path, owner), "has_method", key, evidence)
        elif definition.parent in types:
            parent = keys.class_key(repo, branch, path, definition.parent or "")
            graph.edge(parent, "contains", key, evidence)
        else:
            graph.edge(here, "contains", key, evidence)
        for base in definition.bases:
            target = _base_key(structure, context, base, types)
            graph.node(target, "class", {"name": _type_name(base)})
            graph.edge(key, "extends", target, evidence)


def _base_key(structure: FileStructure, context: CodeContext, base: str, types: set[str]) -> str:
    """The class ``base`` names: one of this file, one an import names, one beside it (Java,
    Kotlin), else the bare ``class:<name>``."""
    repo, branch = context.repository, context.branch
    name = base.split("<", 1)[0].split("[", 1)[0].split("(", 1)[0].strip()
    local = _type_name(base)
    if name in types:
        return keys.class_key(repo, branch, structure.path, name)
    for item in structure.imports:
        original = imported_name(item, name) or imported_name(item, name.split(".", 1)[0])
        target = import_file(structure, item, context.paths) if original else None
        if target is not None:
            return keys.class_key(repo, branch, target, local if "." in name else original or "")
    if structure.language in (CodeLanguage.JAVA, CodeLanguage.KOTLIN):
        folder = structure.path.rsplit("/", 1)[0] + "/" if "/" in structure.path else ""
        beside = context.paths.first(f"{folder}{local}{ext}" for ext in (".java", ".kt"))
        if beside is not None:
            return keys.class_key(repo, branch, beside, local)
    return keys.class_key_bare(local)


def _type_name(base: str) -> str:
    """``Base`` of ``core.Base<T>``."""
    return base.split("<", 1)[0].split("[", 1)[0].split("(", 1)[0].strip().rsplit(".", 1)[-1]


def _imports(
    structure: FileStructure, context: CodeContext, pieces: list[CodePiece], graph: _Graph
) -> None:
    repo, branch = context.repository, context.branch
    here = keys.file_key(repo, branch, structure.path)
    for item in structure.imports:
        evidence = piece_at(pieces, item.line)
        target = import_file(structure, item, context.paths)
        if target is None:
            graph.node(keys.module_key(item.module), "module", {"name": item.module})
            graph.edge(here, "imports", keys.module_key(item.module), evidence)
            continue
        target_key = keys.file_key(repo, branch, target)
        graph.node(target_key, "file", _file_properties(context, target, language_for_path(target)))
        graph.edge(here, "imports", target_key, evidence)


def embedding_text(heading: str, content: str, most: int = EMBEDDING_CHARS) -> str:
    """``heading`` and the first lines of ``content``, at most ``most`` characters in all,
    cut at a line end (mid-line only when the first line alone is longer).

    Example: ``embedding_text("python a.py:1-9 f", "def f(x):\\n    return x")`` is both
    whole.
    """
    text = f"{heading}\n{content}"
    if len(text) <= most:
        return text
    end = text.rfind("\n", len(heading) + 1, most + 1)
    return text[: end if end > len(heading) else most].rstrip()

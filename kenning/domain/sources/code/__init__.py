"""Code structure: repositories, files, classes and methods as graph knowledge.

Read ``pipeline`` first (the whole flow), then ``code_graph`` (one file → one
``GraphRequest``), ``code_keys`` (canonical keys per branch), ``code_chunks`` (chunks by
definition), ``plan`` (incremental re-ingest from ``git diff``) and ``aliases`` (short
references such as ``file:UserService.kt`` meeting the canonical nodes). Parsing
(tree-sitter) and git live behind ``ports`` in ``kenning.storage.sources.code``.
"""

from kenning.domain.sources.code.aliases import code_aliases
from kenning.domain.sources.code.code_graph import CodeContext, file_request
from kenning.domain.sources.code.import_targets import PathIndex
from kenning.domain.sources.code.pipeline import (
    AppliedPlan,
    RefusedFile,
    SkippedFile,
    apply_plan,
    code_requests,
    parse_files,
    select_files,
)
from kenning.domain.sources.code.plan import CodePlan, code_plan
from kenning.domain.sources.code.ports import CodeParser, GitRepository, TrackedFile
from kenning.domain.sources.code.structure import (
    CodeLanguage,
    Definition,
    DefinitionKind,
    FileStructure,
    Import,
)

__all__ = [
    "AppliedPlan",
    "CodeContext",
    "CodeLanguage",
    "CodeParser",
    "CodePlan",
    "Definition",
    "DefinitionKind",
    "FileStructure",
    "GitRepository",
    "Import",
    "PathIndex",
    "RefusedFile",
    "SkippedFile",
    "TrackedFile",
    "apply_plan",
    "code_aliases",
    "code_plan",
    "code_requests",
    "file_request",
    "parse_files",
    "select_files",
]

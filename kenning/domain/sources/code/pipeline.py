"""From a repository at a commit to stored code knowledge: select, read, parse, build one
``GraphRequest`` per file, then ingest and purge as the plan says.

The blocking steps (``select_files``, ``parse_files``, ``code_requests``) are plain
functions for a worker thread; ``apply_plan`` is the async part that stores.

Example::

    files = select_files(repo.tracked_files(commit), max_bytes=1_000_000)
    plan = code_plan(name, branch, last_commit=None, current_commit=commit, selected=files)
    parsed, skipped = parse_files(repo.read(commit, plan.ingest), parser)
    requests = code_requests(parsed, CodeContext(name, branch, scope, PathIndex(files)))
    outcomes = await apply_plan(requests, plan.purge, scope, deps)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kenning.domain.access.scope import Scope
from kenning.domain.errors import KenningError
from kenning.domain.ingestion.graph_items import GraphRequest
from kenning.domain.ingestion.ingest import IngestDeps
from kenning.domain.ingestion.ingest_graph import GraphOutcome, ingest_graph
from kenning.domain.ingestion.purge import remove_stored_source
from kenning.domain.ingestion.request import PurgeCounts
from kenning.domain.sources.code.code_graph import CodeContext, file_request
from kenning.domain.sources.code.ports import CodeParser, TrackedFile
from kenning.domain.sources.code.selection import (
    DEFAULT_MAX_FILE_BYTES,
    selected_path,
    skip_reason,
)
from kenning.domain.sources.code.structure import FileStructure


@dataclass(frozen=True, slots=True)
class SkippedFile:
    """A file that was not read, and why (``binary``, ``minified``, ``too large``, …)."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class RefusedFile:
    """A file's request the ingest refused (credentials in the code under the REJECT
    policy, say), with the error's code and message; the other files go on."""

    source_urn: str
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class AppliedPlan:
    """What storing a plan did: an outcome per ingested file, the refused files, and the
    purges' counts."""

    outcomes: tuple[GraphOutcome, ...]
    purged: PurgeCounts
    refused: tuple[RefusedFile, ...] = ()


def select_files(
    files: Iterable[TrackedFile], max_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> list[str]:
    """The paths the code source reads: a known language, not vendored, not over size."""
    return sorted(f.path for f in files if f.size <= max_bytes and selected_path(f.path))


def parse_files(
    contents: Mapping[str, bytes], parser: CodeParser, max_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> tuple[list[FileStructure], list[SkippedFile]]:
    """Each readable file parsed; the others named with the reason they were skipped."""
    parsed: list[FileStructure] = []
    skipped: list[SkippedFile] = []
    for path, content in sorted(contents.items()):
        language = selected_path(path)
        reason = "not code" if language is None else skip_reason(content, max_bytes)
        if reason is not None or language is None:
            skipped.append(SkippedFile(path, reason or "not code"))
            continue
        parsed.append(parser.parse(path, language, content))
    return parsed, skipped


def code_requests(structures: Iterable[FileStructure], context: CodeContext) -> list[GraphRequest]:
    """One request per file that holds code."""
    requests = (file_request(structure, context) for structure in structures)
    return [request for request in requests if request is not None]


async def apply_plan(
    requests: Iterable[GraphRequest], purge: Iterable[str], scope: Scope, deps: IngestDeps
) -> AppliedPlan:
    """Purge the ``purge`` sources at ``scope``, then ingest ``requests`` one by one; a
    request refused on purpose (a ``KenningError``) is reported and the rest go on."""
    purged = PurgeCounts()
    for urn in purge:
        purged = purged + await remove_stored_source(scope, urn, deps.store)
    outcomes: list[GraphOutcome] = []
    refused: list[RefusedFile] = []
    for request in requests:
        try:
            outcomes.append(await ingest_graph(request, deps))
        except KenningError as error:
            refused.append(RefusedFile(request.source_urn, error.code.value, error.message))
    return AppliedPlan(tuple(outcomes), purged, tuple(refused))

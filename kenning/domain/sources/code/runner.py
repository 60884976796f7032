"""The "repository" job: a branch's code brought from the commit it was last ingested at to
the job's commit.

The commit the branch's knowledge stands for is the ``lastCommit`` property of its
``branch:`` node, written by the branch's own source (``code:<repo>@<branch>``) once a run
has stored every file; a run that stops half-way leaves it, so the next run plans from the
same commit again (ingests of unchanged files are skipped by their content hash). Steps:
open the repository (a clone is fetched), plan from ``git diff``, parse off the loop, ingest
file by file with ``checkpoint()`` in between, purge deleted files' sources, register the
short aliases (``file:UserService.kt``), record the commit. What the run stores is observed
at the commit's author date: the code said so from then.

Example: ``JobDeps(..., runners={REPOSITORY_TASK: repository_runner(ports)})``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from dataclasses import dataclass, field, replace
from typing import Protocol

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.graph.model import GraphReader
from kenning.domain.ingestion.aliases import AliasBook, register_alias
from kenning.domain.ingestion.git_commits import FileChange
from kenning.domain.ingestion.graph_items import GraphPiece, GraphRequest
from kenning.domain.ingestion.ingest_graph import ingest_graph
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord
from kenning.domain.ingestion.source_times import iso_date
from kenning.domain.off_loop import OFF_LOOP_CHARS, off_loop
from kenning.domain.queue.jobs import JobStage, JobStatus
from kenning.domain.queue.tasks import TaskRun, TaskRunner
from kenning.domain.sources.code import code_keys as keys
from kenning.domain.sources.code.aliases import code_aliases
from kenning.domain.sources.code.code_graph import CodeContext
from kenning.domain.sources.code.import_targets import PathIndex
from kenning.domain.sources.code.pipeline import (
    AppliedPlan,
    RefusedFile,
    apply_plan,
    code_requests,
    parse_files,
    select_files,
)
from kenning.domain.sources.code.plan import CodePlan, code_plan
from kenning.domain.sources.code.ports import CodeParser, GitRepository
from kenning.domain.sources.code.progress import RepositoryBoard, RepositoryProgress
from kenning.domain.sources.code.repository_request import RepositoryJob
from kenning.domain.sources.code.runner_files import ingest_files
from kenning.domain.sources.code.selection import DEFAULT_MAX_FILE_BYTES
from kenning.domain.sources.code.structure import FileStructure

logger = logging.getLogger("kenning.sources.code")
# Files read and parsed together; each is still ingested (and checkpointed) on its own.
BATCH = 32


class RepositoryOpener(Protocol):
    """Opens the repository a job names (a clone is fetched first); blocking."""

    def open(self, job: RepositoryJob) -> tuple[GitRepository, str]:
        """The repository and the commit to ingest (the job's, or the branch's fetched head
        when a remote no longer has it)."""
        ...


@dataclass(frozen=True, slots=True)
class RepositoryPorts:
    """What the runner needs beyond the job's ingest deps."""

    opener: RepositoryOpener
    parser: CodeParser
    aliases: AliasBook
    graph: GraphReader
    board: RepositoryBoard
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES


@dataclass(slots=True)
class RepositoryReport:
    """What one run did (logged at its end)."""

    ingested: int = 0
    unchanged: int = 0
    purged: int = 0
    refused: int = 0
    skipped: int = 0
    aliases: int = 0
    # Each refused file and why, the first MAX_REFUSED_LISTED of them (kept with the run).
    refused_files: list[RefusedFile] = field(default_factory=list)

    def progress(self, planned: int) -> RepositoryProgress:
        """The counts so far, as the job's live progress shows them."""
        counts = (self.ingested, self.unchanged, self.refused, self.skipped)
        return RepositoryProgress(planned, *counts)


async def last_commit(graph: GraphReader, scope: Scope, repository: str, branch: str) -> str | None:
    """The commit the branch's stored knowledge stands for, if any."""
    key = keys.branch_key(repository, branch)
    node = (await graph.nodes(scope, [key])).get(key)
    value = node.properties.get("lastCommit") if node is not None else None
    return value if isinstance(value, str) and value else None


def repository_runner(ports: RepositoryPorts) -> TaskRunner:
    """The runner of "repository" jobs over ``ports``."""

    async def run(task: TaskRun) -> JobStatus:
        job = RepositoryJob.from_payload(task.payload)
        scope = task.job.scope
        await task.stage(JobStage.READING)
        repo, commit = await asyncio.to_thread(ports.opener.open, job)
        last = await last_commit(ports.graph, scope, job.name, job.branch)
        plan, files = await asyncio.to_thread(_plan, repo, job, last, commit, ports.max_file_bytes)
        authored = iso_date(await asyncio.to_thread(repo.authored_at, commit), "commit date")
        context = CodeContext(
            job.name,
            job.branch,
            scope,
            PathIndex(files),
            connection_id=task.job.connection_id,
            priority=task.job.priority,
            observed_at=authored,
        )
        report = RepositoryReport()
        await ports.board.put(task.job, report.progress(len(plan.ingest)))
        structures: list[FileStructure] = []
        for start in range(0, len(plan.ingest), BATCH):
            await task.checkpoint()
            batch = plan.ingest[start : start + BATCH]
            contents = await asyncio.to_thread(repo.read, commit, batch)
            parse = functools.partial(parse_files, contents, ports.parser, ports.max_file_bytes)
            parsed, skipped = await off_loop(OFF_LOOP_CHARS, parse)
            report.skipped += len(skipped)
            structures.extend(parsed)
            requests = code_requests(parsed, context)
            _count(await ingest_files(requests, scope, task.ingest, task.checkpoint), report)
            await ports.board.put(task.job, report.progress(len(plan.ingest)))
        await task.checkpoint()
        report.purged = (await apply_plan((), plan.purge, scope, task.ingest)).purged.sources
        aliases = code_aliases(job.name, job.branch, files, structures)
        report.aliases = await _register_aliases(aliases, scope, ports.aliases, task)
        state = replace(
            _state_request(job, commit, scope, task.job.priority, report),
            observed_at=authored,
            connection_id=task.job.connection_id,
        )
        await ingest_graph(state, task.ingest)
        logger.info(
            "repository.ingested",
            extra={
                "job_id": task.job.id,
                "repository": job.name,
                "branch": job.branch,
                "commit": commit,
                "last_commit": last,
                **vars_of(report),
            },
        )
        return JobStatus.INDEXED

    return run


def vars_of(report: RepositoryReport) -> dict[str, int]:
    """The report's counts, as log fields."""
    return {name: getattr(report, name) for name in _COUNTS}


_COUNTS = ("ingested", "unchanged", "purged", "refused", "skipped", "aliases")
MAX_REFUSED_LISTED = 100


def _refused_list(report: RepositoryReport) -> list[dict[str, str]]:
    """The refused files as the branch node keeps them: path, code and reason."""
    return [
        {"path": r.source_urn.split(":", 2)[-1], "code": r.code, "reason": r.message}
        for r in report.refused_files
    ]


def _plan(
    repo: GitRepository, job: RepositoryJob, last: str | None, commit: str, max_bytes: int
) -> tuple[CodePlan, list[str]]:
    files = select_files(repo.tracked_files(commit), max_bytes)
    changes: tuple[FileChange, ...] = ()
    if last is not None and last != commit:
        try:
            changes = tuple(repo.changes(last, commit))
        except ValidationError:
            # The last commit is gone (history rewritten, a fresh clone): read everything.
            logger.warning("repository.last_commit_missing", extra={"commit": last})
            last = None
    plan = code_plan(
        job.name,
        job.branch,
        last_commit=last,
        current_commit=commit,
        selected=files,
        changes=changes,
    )
    return plan, files


def _count(applied: AppliedPlan, report: RepositoryReport) -> None:
    report.refused += len(applied.refused)
    room = MAX_REFUSED_LISTED - len(report.refused_files)
    report.refused_files.extend(applied.refused[: max(room, 0)])
    for refused in applied.refused:
        logger.warning(
            "repository.file_refused",
            extra={
                "source_urn": refused.source_urn,
                "code": refused.code,
                "reason": refused.message,
            },
        )
    for outcome in applied.outcomes:
        if outcome.outcome.status.value == "SKIPPED_DUPLICATE":
            report.unchanged += 1
        else:
            report.ingested += 1


async def _register_aliases(
    aliases: dict[str, str], scope: Scope, book: AliasBook, task: TaskRun
) -> int:
    """Register the aliases not registered yet (aliases belong to a client)."""
    if not scope.client_id:
        return 0
    registered = 0
    for alias, target in aliases.items():
        if await book.canonical_of(scope.client_id, alias) == target:
            continue
        await task.checkpoint()
        await register_alias(
            scope.client_id, alias, target, area="code", book=book, store=task.ingest.store
        )
        registered += 1
    return registered


def _state_request(
    job: RepositoryJob, commit: str, scope: Scope, priority: int, report: RepositoryReport
) -> GraphRequest:
    branch = keys.branch_key(job.name, job.branch)
    text = f"Branch {job.branch} of repository {job.name} is ingested at commit {commit}."
    # The last run's counts ride on the branch node, where a client reads what it did.
    properties: dict[str, object] = {
        "name": job.branch,
        "repository": job.name,
        "lastCommit": commit,
        "lastRun": {**vars_of(report), "refusedFiles": _refused_list(report)},
    }
    return GraphRequest(
        source_urn=job.state_urn,
        scope=scope,
        kind="code_branch",
        pieces=(GraphPiece("state", text),),
        nodes=(NodeRecord(branch, "branch", properties),),
        edges=(EdgeRecord(keys.repo_key(job.name), "contains", branch, ("state",)),),
        priority=priority,
    )

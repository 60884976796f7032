"""Git history as graph knowledge: commits, branches and files, with diffs as evidence.

Each commit becomes one structured ingest (its own source, ``git:<repository>@<hash>``), so
re-sending a commit is idempotent and a commit can be purged alone. No model is involved.
Its author date is its chunks' ``observedAt`` (and so its edges' ``validFrom``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.graph_items import GraphPiece, GraphRequest
from kenning.domain.ingestion.request import EdgeRecord, NodeRecord
from kenning.domain.ingestion.rules import check_identifiers, clean_content
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.source_times import source_time

_HASH = re.compile(r"^[0-9a-fA-F]{7,64}$")
_EDGE_BY_CHANGE = {"M": "modifies", "A": "creates", "D": "deletes", "R": "renames"}
MAX_COMMITS = 500


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file a commit touched: M(odified), A(dded), D(eleted) or R(enamed)."""

    path: str
    change_type: str
    old_path: str | None = None


@dataclass(frozen=True, slots=True)
class GitCommit:
    """One commit as a git indexer reads it."""

    hash: str
    message: str
    author: str
    date: datetime
    branch: str | None = None
    parents: tuple[str, ...] = ()
    files: tuple[FileChange, ...] = ()
    diff: str = ""


def commit_requests(
    repository: str,
    commits: tuple[GitCommit, ...],
    scope: Scope,
    *,
    connection_id: str | None,
    policy: SecretPolicy = SecretPolicy.REJECT,
) -> list[GraphRequest]:
    """One ``GraphRequest`` per commit; ``ValidationError`` names a malformed commit and
    ``SensitiveContentError`` the field holding a credential (``commits[0].message``)."""
    if not repository.strip():
        raise ValidationError("repository is required", field="repository")
    if not commits or len(commits) > MAX_COMMITS:
        raise ValidationError(f"give 1..{MAX_COMMITS} commits", field="commits")
    check_identifiers(_identifiers(repository, commits, connection_id))
    if policy is SecretPolicy.REJECT:
        # REDACT marks the text where it is stored; REJECT names the field here.
        for i, commit in enumerate(commits):
            for name, text in (
                ("message", commit.message),
                ("author", commit.author),
                ("diff", commit.diff),
            ):
                clean_content(text, policy, f"commits[{i}].{name}")
    return [_request(repository, c, i, scope, connection_id) for i, c in enumerate(commits)]


def _identifiers(
    repository: str, commits: tuple[GitCommit, ...], connection_id: str | None
) -> list[tuple[str, str]]:
    """Names and paths by input name: they become keys and the URN, so a credential there
    is refused whatever the policy."""
    fields = [("repository", repository), ("connectionId", connection_id or "")]
    for i, commit in enumerate(commits):
        name = f"commits[{i}]"
        fields += [(f"{name}.hash", commit.hash), (f"{name}.branch", commit.branch or "")]
        fields += [(f"{name}.parents[{j}]", p) for j, p in enumerate(commit.parents)]
        for j, change in enumerate(commit.files):
            fields += [
                (f"{name}.files[{j}].path", change.path),
                (f"{name}.files[{j}].oldPath", change.old_path or ""),
            ]
    return [(field, value) for field, value in fields if value]


def _request(
    repository: str, commit: GitCommit, index: int, scope: Scope, connection_id: str | None
) -> GraphRequest:
    if not _HASH.match(commit.hash):
        raise ValidationError(f"commits[{index}].hash is not a git hash", field="hash")
    sha = commit.hash.lower()
    key = f"commit:{sha}"
    evidence = f"{sha}:diff"
    text = f"commit {sha}\nAuthor: {commit.author}\nDate: {commit.date.isoformat()}\n\n"
    text += commit.message.strip() + ("\n\n" + commit.diff if commit.diff.strip() else "")
    nodes = [
        NodeRecord(
            key,
            "commit",
            {
                "hash": sha,
                "message": commit.message.strip()[:2000],
                "author": commit.author,
                "date": commit.date.isoformat(),
                "repository": repository,
            },
        ),
    ]
    edges: list[EdgeRecord] = []
    if commit.branch:
        branch = f"branch:{repository}/{commit.branch}"
        nodes.append(NodeRecord(branch, "branch", {"name": commit.branch}))
        edges.append(EdgeRecord(branch, "has_commit", key, (evidence,)))
    for parent in commit.parents:
        if not _HASH.match(parent):
            raise ValidationError(f"commits[{index}].parents has a non-hash", field="parents")
        nodes.append(NodeRecord(f"commit:{parent.lower()}", "commit", {"hash": parent.lower()}))
        edges.append(EdgeRecord(key, "parent", f"commit:{parent.lower()}", (evidence,)))
    for change in commit.files:
        edge = _EDGE_BY_CHANGE.get(change.change_type.upper())
        if edge is None:
            raise ValidationError(
                f"commits[{index}] file {change.path!r}: change type must be M, A, D or R",
                field="changeType",
            )
        target = f"file:{change.path}"
        nodes.append(NodeRecord(target, "file", {"path": change.path}))
        edges.append(EdgeRecord(key, edge, target, (evidence,)))
        if change.change_type.upper() == "R" and change.old_path:
            old = f"file:{change.old_path}"
            nodes.append(NodeRecord(old, "file", {"path": change.old_path}))
            edges.append(EdgeRecord(target, "renamed_from", old, (evidence,)))
    return GraphRequest(
        source_urn=f"git:{repository}@{sha}",
        scope=scope,
        kind="git_commit",
        pieces=(GraphPiece(evidence, text),),
        nodes=tuple(nodes),
        edges=tuple(edges),
        connection_id=connection_id,
        source_kind="git",
        # What a commit says held from when it was authored (an implausible date: from now).
        observed_at=source_time(commit.date, "commit date"),
    )

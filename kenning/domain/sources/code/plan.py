"""What to ingest and purge to bring a branch's code knowledge from one commit to another.

With no previous commit every selected file is ingested; with the same commit nothing
happens; otherwise ``git diff --name-status`` decides: added, modified, copied and
type-changed files are ingested, deleted ones purged, a renamed one purged under its old
path and ingested under its new one. A changed file the selection now refuses (grown too
large, say) is purged, so its old knowledge does not linger.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.git_commits import FileChange
from kenning.domain.sources.code.code_keys import source_urn

_INGESTED = frozenset("AMCT")


@dataclass(frozen=True, slots=True)
class CodePlan:
    """Paths to (re-)ingest and source URNs to purge, each sorted; ``full`` for a first run."""

    ingest: tuple[str, ...]
    purge: tuple[str, ...]
    full: bool = False

    @property
    def empty(self) -> bool:
        """Whether there is nothing to do."""
        return not self.ingest and not self.purge


def code_plan(
    repository: str,
    branch: str,
    *,
    last_commit: str | None,
    current_commit: str,
    selected: Collection[str],
    changes: Sequence[FileChange] = (),
) -> CodePlan:
    """The plan from ``last_commit`` to ``current_commit``; ``selected`` are the paths the
    code source reads at ``current_commit``, ``changes`` the diff between the two."""
    if last_commit is None:
        return CodePlan(tuple(sorted(selected)), (), full=True)
    if last_commit == current_commit:
        return CodePlan((), ())
    ingest: set[str] = set()
    purge: set[str] = set()
    for change in changes:
        status = change.change_type[:1].upper()
        if status == "R" and change.old_path:
            purge.add(change.old_path)
        if status in _INGESTED or status == "R":
            (ingest if change.path in selected else purge).add(change.path)
        elif status == "D":
            purge.add(change.path)
        else:
            raise ValidationError(
                f"change of {change.path!r}: unknown status {change.change_type!r}",
                field="changes",
            )
    return CodePlan(
        tuple(sorted(ingest)), tuple(sorted(source_urn(repository, branch, p) for p in purge))
    )

"""``kenning migrate``: bring the database up to date, saying what changed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from kenning.settings import Settings

if TYPE_CHECKING:
    from kenning.storage.db.migrate import Migrated


def print_migrated(migrated: Migrated, *, upgrade: bool = True, err: bool = False) -> None:
    """One line per revision, then where the database is now.

    Example: ``applied 0005  Queue leases ...`` then ``1 applied: database is at 0005``;
    a line names the embedding model when the run recorded one.
    """
    verb, none = ("applied", "pending") if upgrade else ("rolled back", "to roll back")
    for revision in migrated.revisions:
        typer.echo(f"{verb} {revision.id}  {revision.message}", err=err)
    if migrated.recorded_model:
        typer.echo(f"recorded embedding model {migrated.recorded_model}", err=err)
    if migrated.conflicting_model:
        typer.echo(
            f"warning: the stored vectors come from {migrated.conflicting_model!r}, not "
            f"{migrated.embedder_model!r} (the configured embedder); `kenning serve` will "
            "refuse to start until they match",
            err=True,
        )
    at = migrated.current or "base (empty)"
    count = len(migrated.revisions)
    typer.echo(f"{count} {verb if count else none}: database is at {at}", err=err)


def migrate_command(
    revision: Annotated[
        str,
        typer.Argument(
            metavar="REVISION",
            help="Where to go: a revision id such as 0003, head (the newest) or, with "
            "--downgrade, base (nothing left).",
        ),
    ] = "head",
    downgrade: Annotated[
        bool, typer.Option("--downgrade", help="Roll back to REVISION instead of upgrading.")
    ] = False,
) -> None:
    """Apply the database migrations (KENNING_DATABASE_URL), or roll them back.

    Prints each revision applied, or "0 pending" when the database is up to date.
    """
    from kenning.storage.db.migrate import run_downgrade, run_upgrade

    settings = Settings()
    if downgrade:
        print_migrated(run_downgrade(settings, revision), upgrade=False)
    else:
        print_migrated(run_upgrade(settings, revision))

"""``kenning projects``: which group each project is in, and moving one."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

import redis.asyncio as aioredis
import typer

from kenning.cli.group import PlainCommand
from kenning.cli.tables import echo_table
from kenning.settings import Settings
from kenning.storage.access.project_groups import PgProjectGroups
from kenning.storage.db.database_url import database_name
from kenning.storage.db.pool import create_pool

projects_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="A project's group decides who sees its knowledge, jobs and connections: every "
    "project of the group, and the group's own rows. Moving a project changes it at once.",
)
T = TypeVar("T")
_CLIENT = typer.Option(metavar="ID", help="The client the project belongs to.")


def _run(work: Callable[[PgProjectGroups], Awaitable[T]]) -> T:
    async def main() -> T:
        pool = await create_pool(Settings(), min_size=1)
        try:
            return await work(PgProjectGroups(pool))
        finally:
            await pool.close()

    return asyncio.run(main())


def _resync_live_feeds() -> bool:
    """Tell running servers' queue feeds to re-read: which jobs a group sees changed."""

    # Here, not at the top: the queue's modules cost every command a tenth of a second.
    from kenning.storage.queue.event_bus import RedisEventBus, channel_for

    async def main() -> bool:
        settings = Settings()
        redis = aioredis.from_url(settings.redis_url)
        try:
            bus = RedisEventBus(redis, channel_for(database_name(settings.database_url)))
            return await bus.publish_resync()
        finally:
            await redis.aclose()

    return asyncio.run(main())


@projects_app.command("list")
def list_projects(client: Annotated[str, _CLIENT]) -> None:
    """List a client's recorded projects with their group."""
    groups = _run(lambda store: store.of_client(client))
    rows = [
        (project, group or "(none: moved out)")
        for (_, project), group in sorted(groups.groups.items())
    ]
    echo_table(("PROJECT", "GROUP"), rows, f"no projects recorded for client {client!r}")


@projects_app.command("move", cls=PlainCommand)
def move(
    project: Annotated[str, typer.Argument(metavar="PROJECT", help="The project to move.")],
    client: Annotated[str, _CLIENT],
    group: Annotated[
        str, typer.Option(metavar="ID", help='The group it moves to; "" takes it out of any.')
    ],
) -> None:
    """Move a project to another group: the old group stops seeing it, the new one sees it."""
    before = _run(lambda store: store.move(client, project, group))
    typer.echo(
        f"project {project} of client {client}: group {before or '(none)'} -> {group or '(none)'}"
    )
    if not _resync_live_feeds():
        typer.echo(
            "warning: Redis did not take the re-read signal; open queue feeds show the move "
            "at their next refresh",
            err=True,
        )

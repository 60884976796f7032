"""``kenning keys``: create, list and revoke API keys."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Annotated, TypeVar

import redis.asyncio as aioredis
import typer

from kenning.cli.exit_codes import ExitCode
from kenning.cli.group import PlainCommand, report
from kenning.cli.tables import echo_table
from kenning.domain.access.api_keys import check_label
from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.settings import Settings
from kenning.storage.access.api_keys import AUTH_CACHE_SECONDS, ApiKeyInfo, PgApiKeys
from kenning.storage.access.project_groups import PgProjectGroups
from kenning.storage.db.pool import create_pool

keys_app = typer.Typer(
    no_args_is_help=True,
    rich_markup_mode=None,
    help="Create, list and revoke API keys in the database of KENNING_DATABASE_URL. "
    "Only a key's hash is stored.",
)
T = TypeVar("T")


def _run(work: Callable[[PgApiKeys, PgProjectGroups], Awaitable[T]]) -> T:
    async def main() -> T:
        settings = Settings()
        pool = await create_pool(settings, min_size=1)
        # Redis tells running servers about a revocation, so they drop the key at once.
        redis = aioredis.from_url(settings.redis_url)
        try:
            return await work(PgApiKeys(pool, redis=redis), PgProjectGroups(pool))
        finally:
            await redis.aclose()
            await pool.close()

    return asyncio.run(main())


KEY_COLUMNS = ("ID", "ROLE", "STATE", "SCOPE", "CREATED", "LABEL")


def _cells(info: ApiKeyInfo) -> tuple[str, ...]:
    state = "revoked" if info.revoked_at else "active"
    return (
        info.id,
        info.role.value,
        state,
        info.scope.describe(),
        f"{info.created_at:%Y-%m-%d %H:%M}",
        info.label,
    )


def _line(info: ApiKeyInfo) -> str:
    state = "revoked" if info.revoked_at else "active"
    return (
        f"{info.id}  {info.role.value:6} {state:8} {info.scope.describe():40} "
        f"{info.created_at:%Y-%m-%d %H:%M}  {info.label}"
    )


async def _create(
    keys: PgApiKeys, groups: PgProjectGroups, scope: Scope, role: Role, label: str
) -> tuple[str, ApiKeyInfo]:
    # The operator may record a project's group, as a client-wide key may.
    settled = await groups.settle(scope, Scope())
    return await keys.create(settled, role, label)


@keys_app.command("create")
def create(
    client: Annotated[
        str,
        typer.Option(metavar="ID", help='Client the key belongs to; "" makes a global key.'),
    ],
    role: Annotated[
        Role,
        typer.Option(help="What the key may do: ui reads, agent reads and writes, admin manages."),
    ],
    project: Annotated[
        str,
        typer.Option(
            metavar="ID",
            show_default=False,
            help="Project of the client it is limited to [default: none, the whole client].",
        ),
    ] = "",
    group: Annotated[
        str,
        typer.Option(
            metavar="ID",
            show_default=False,
            help="Group of projects it also reads, with --project [default: none].",
        ),
    ] = "",
    label: Annotated[
        str,
        typer.Option(
            metavar="TEXT",
            show_default=False,
            help="A note to recognise the key by [default: none].",
        ),
    ] = "",
) -> None:
    """Create a key and print it once; it cannot be shown again."""
    scope = Scope(client, project, group)
    check_label(label)
    key, info = _run(lambda keys, groups: _create(keys, groups, scope, role, label))
    typer.echo(key)
    typer.echo(f"id {info.id}  role {info.role.value}  scope {info.scope.describe()}", err=True)
    typer.echo("Store the key now: only its hash is kept.", err=True)


@keys_app.command("list")
def list_keys(
    client: Annotated[
        str | None, typer.Option(metavar="ID", help="Only this client's keys [default: all].")
    ] = None,
) -> None:
    """List keys (never their secrets)."""
    found = _run(lambda keys, _: keys.list(client))
    whose = "" if client is None else f" of client {client!r}"
    echo_table(
        KEY_COLUMNS,
        [_cells(info) for info in found],
        f"no keys{whose}: kenning keys create makes one",
    )


@keys_app.command("revoke", cls=PlainCommand)
def revoke(
    key_id: Annotated[
        str, typer.Argument(metavar="KEY_ID", help="The key's id, as kenning keys list shows it.")
    ],
) -> None:
    """Revoke a key; running servers refuse it and close its websockets at once."""
    info, told = _run(lambda keys, _: keys.revoke_everywhere(key_id))
    if info is None:
        raise report(f"no key with id {key_id}: kenning keys list shows them", ExitCode.FAILED)
    typer.echo(_line(info))
    if not told:
        typer.echo(
            f"Redis is unreachable: running servers refuse the key within "
            f"{AUTH_CACHE_SECONDS:.0f} s, when their cached authentication expires.",
            err=True,
        )

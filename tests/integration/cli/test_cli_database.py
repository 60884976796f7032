"""``kenning migrate`` on the real PostgreSQL: what it prints, and one line when the database
is missing or the server cannot be reached, for every command that needs it."""

from __future__ import annotations

import asyncio
import os
import socket

import asyncpg
import pytest
from typer.testing import CliRunner, Result

from kenning.app import preflight
from kenning.cli.main import app
from kenning.settings import Settings
from kenning.storage.db.database_url import asyncpg_dsn, with_database
from kenning.storage.db.migrate import alembic_config
from tests.support.database import TEST_DATABASE, recreate_database

pytestmark = pytest.mark.integration

DATABASE = f"{TEST_DATABASE}_cli"
MISSING = f"{TEST_DATABASE}_never_created"
DATABASE_COMMANDS = [["migrate"], ["serve"], ["worker"], ["keys", "list"]]


def kenning(*args: str, database_url: str, **settings: str) -> Result:
    """``kenning args`` against ``database_url`` with the hash embedder, no other
    ``KENNING_*`` variable set than ``settings`` (``embedder="ollama"``: KENNING_EMBEDDER)."""
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("KENNING_")}
    env.update(KENNING_DATABASE_URL=database_url, KENNING_EMBEDDER="hash")
    env.update({f"KENNING_{name.upper()}": value for name, value in settings.items()})
    return CliRunner().invoke(app, list(args), env=env)


def revisions(settings: Settings) -> list[tuple[str, str]]:
    """(id, first docstring paragraph) of every migration, oldest first."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(alembic_config(settings))
    walked = [(s.revision, " ".join(s.doc.split())) for s in script.walk_revisions()]
    return list(reversed(walked))


@pytest.fixture
def fresh_url(test_settings: Settings) -> str:
    url = with_database(test_settings.database_url, DATABASE)
    asyncio.run(recreate_database(url, DATABASE))
    return url


def test_migrate_prints_each_revision_then_nothing_pending(
    fresh_url: str, test_settings: Settings
) -> None:
    known = revisions(test_settings)
    head = known[-1][0]

    first = kenning("migrate", database_url=fresh_url)
    assert first.exit_code == 0, first.output
    expected = [f"applied {rev}  {message}" for rev, message in known]
    assert first.stdout.splitlines() == [
        *expected,
        f"recorded embedding model hash-{test_settings.embedding_dim}",
        f"{len(known)} applied: database is at {head}",
    ]

    again = kenning("migrate", database_url=fresh_url)
    assert again.stdout == f"0 pending: database is at {head}\n"

    back = kenning("migrate", "--downgrade", known[-2][0], database_url=fresh_url)
    assert back.stdout.splitlines() == [
        f"rolled back {head}  {known[-1][1]}",
        f"1 rolled back: database is at {known[-2][0]}",
    ]
    forward = kenning("migrate", database_url=fresh_url)
    assert forward.stdout.splitlines() == [
        expected[-1],
        f"1 applied: database is at {head}",
    ]


def test_serve_starts_on_a_database_migrated_with_the_hash_embedder(
    fresh_url: str, test_settings: Settings
) -> None:
    result = kenning("migrate", database_url=fresh_url)
    assert result.exit_code == 0, result.output
    # As `kenning serve` sees it with only KENNING_EMBEDDER=hash set.
    served = test_settings.model_copy(
        update={"database_url": fresh_url,
                "embedding_model": Settings.model_fields["embedding_model"].default}
    )  # fmt: skip
    asyncio.run(preflight(served))

    # Once vectors are stored, another embedder's model is not recorded over theirs.
    asyncio.run(_store_a_vector(fresh_url, test_settings.embedding_dim))
    other = kenning("migrate", database_url=fresh_url, embedder="ollama")
    assert other.exit_code == 0, other.output
    assert other.stderr == (
        f"warning: the stored vectors come from 'hash-{test_settings.embedding_dim}', not "
        f"'{Settings.model_fields['embedding_model'].default}' (the configured embedder); "
        "`kenning serve` will refuse to start until they match\n"
    )


async def _store_a_vector(url: str, dim: int) -> None:
    conn = await asyncpg.connect(asyncpg_dsn(url))
    try:
        await conn.execute(
            """INSERT INTO chunks (id, source_urn, ordinal, kind, content, embedding,
                                   graph_refs, tags, content_hash)
               VALUES ('c1', 'doc:1', 0, 'note', 'x', array_fill(0.5, ARRAY[$1::int])::vector,
                       '{}', '{}', 'h')""",
            dim,
        )
    finally:
        await conn.close()


def test_an_unknown_revision_is_one_line(fresh_url: str) -> None:
    result = kenning("migrate", "9999", database_url=fresh_url)
    assert result.exit_code == 1
    assert result.stderr == "error: Can't locate revision identified by '9999'\n"


@pytest.mark.parametrize("command", DATABASE_COMMANDS, ids=" ".join)
def test_a_missing_database_is_one_line_naming_the_fix(
    command: list[str], test_settings: Settings
) -> None:
    url = with_database(test_settings.database_url, MISSING)
    server = url.split("@", 1)[1].rsplit("/", 1)[0]
    result = kenning(*command, database_url=url)
    assert result.exit_code == 1
    assert result.stderr == (
        f'error: database "{MISSING}" does not exist on {server}: create it '
        "(kenning stack up creates the local one) or set KENNING_DATABASE_URL\n"
    )
    assert result.stdout == ""


@pytest.mark.parametrize("command", DATABASE_COMMANDS, ids=" ".join)
def test_an_unreachable_server_is_one_line_naming_the_fix(command: list[str]) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = kenning(*command, database_url=f"postgresql://postgres@127.0.0.1:{port}/kenning")
    assert result.exit_code == 3
    assert result.stderr == (
        f"error: cannot reach PostgreSQL on 127.0.0.1:{port} (connection refused): start it "
        "(kenning stack up starts the local one) or set KENNING_DATABASE_URL\n"
    )

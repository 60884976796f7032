"""The exit codes are one documented table, shown by ``kenning --help``; a usage error is one
line naming the help to read; a server's refusal or silence maps to its code."""

from __future__ import annotations

import asyncpg
import httpx
import pytest
import redis.exceptions
from kenning_client import GraphQLClientHttpError

from kenning.cli.exit_codes import ExitCode
from kenning.cli.failures import explain
from kenning.cli.server_errors import upstream_error
from tests.support.cli_runner import run

URL = "http://127.0.0.1:8000"


def test_the_top_level_help_ends_with_every_exit_code() -> None:
    text = " ".join(run("--help").stdout.split())  # click's wrapping undone
    assert (
        "Exit codes: 0 done; 1 the work failed (the error line says why and what to do); "
        "2 a bad option, argument or setting; 3 a server (Kenning, PostgreSQL, Redis) is not "
        "running or cannot be reached; 4 the server refused the API key or the database user; "
        "130 stopped by Ctrl-C (a job already sent keeps running on the server)."
    ) in text


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["serve", "--bogus"],
            "No such option: --bogus (Possible options: --host) (see kenning serve -h)",
        ),
        (["bogus"], "No such command 'bogus' (see kenning -h)"),
        (["--bogus"], "No such option: --bogus (see kenning -h)"),
        (["keys", "revoke"], "Missing argument 'KEY_ID' (see kenning keys revoke -h)"),
        (
            ["ingest", "notes.md"],
            "no API key: give --api-key or set KENNING_API_KEY (see kenning ingest -h)",
        ),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else "",
)
def test_a_usage_error_is_one_line_and_exit_2(args: list[str], line: str) -> None:
    result = run(*args)
    assert (result.exit_code, result.stdout) == (ExitCode.USAGE, "")
    assert result.stderr == f"error: {line}\n"


def test_a_group_without_its_command_still_shows_its_help() -> None:
    result = run("keys")
    assert result.exit_code == ExitCode.USAGE
    assert "Commands:" in result.output and "error:" not in result.output


def test_a_server_that_does_not_answer_is_unreachable() -> None:
    request = httpx.Request("POST", f"{URL}/graphql")
    late = upstream_error(httpx.ConnectTimeout("timed out", request=request), URL, "--server")
    assert late is not None and late.exit_code == ExitCode.UNREACHABLE
    assert late.message == (
        f"cannot reach a Kenning server at {URL} (no answer in time): start one (kenning serve) "
        "or give its URL with --server"
    )


def test_a_forbidden_answer_is_a_refused_key_and_anything_else_is_not_known() -> None:
    body = {"errors": [{"message": "the API key has expired"}]}
    forbidden = GraphQLClientHttpError(403, httpx.Response(403, json=body))
    refused = upstream_error(forbidden, URL)
    assert refused is not None and refused.exit_code == ExitCode.REFUSED
    assert refused.message.startswith(
        f"the server at {URL} refused the API key: the API key has expired; give a valid one"
    )
    assert upstream_error(ValueError("a bug"), URL) is None


def test_a_redis_down_is_unreachable_and_a_refused_database_user_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KENNING_DATABASE_URL", "postgresql://kenning:secret@db.example:5432/kb")
    down = explain(redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379."))
    assert down is not None and down.exit_code == ExitCode.UNREACHABLE
    assert down.message.startswith("cannot reach Redis (Error 111 connecting to 127.0.0.1:6379)")
    refused = explain(asyncpg.InvalidPasswordError('password authentication failed for "kenning"'))
    assert refused is not None and refused.exit_code == ExitCode.REFUSED
    assert refused.message == (
        "PostgreSQL on db.example:5432 refused the connection (password authentication failed "
        'for "kenning"): fix the user or password in KENNING_DATABASE_URL'
    )
    assert "secret" not in refused.message

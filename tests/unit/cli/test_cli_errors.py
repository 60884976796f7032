"""A bad setting is one line on stderr naming the variable, for every command that reads
settings; a bug keeps its traceback."""

from __future__ import annotations

import socket

import pytest
import typer
from typer.testing import CliRunner

from kenning.cli.failures import BAD_SETTING, explain
from kenning.cli.group import KenningGroup
from kenning.domain.errors import ConfigurationError
from tests.support.cli_runner import run

SETTINGS_COMMANDS = [
    ["serve"],
    ["migrate"],
    ["worker"],
    ["router"],
    ["keys", "list"],
    ["keys", "create", "--client", "c", "--role", "ui"],
    ["keys", "revoke", "k1"],
    ["stack", "up"],
    ["stack", "down"],
    ["stack", "status"],
]


@pytest.mark.parametrize("command", SETTINGS_COMMANDS, ids=" ".join)
def test_a_bad_setting_is_one_line_naming_the_variable(command: list[str]) -> None:
    result = run(*command, KENNING_PORT="abc")
    assert result.exit_code == BAD_SETTING
    assert result.stderr == "error: KENNING_PORT: Input should be a valid integer (got 'abc')\n"
    assert result.stdout == ""


def test_a_setting_out_of_range_says_the_limit() -> None:
    result = run("migrate", KENNING_DB_POOL_MAX="0")
    assert result.stderr == (
        "error: KENNING_DB_POOL_MAX: Input should be greater than or equal to 1 (got '0')\n"
    )


def test_router_settings_are_named_with_their_own_prefix_and_position() -> None:
    result = run("router", KENNING_ROUTER_GPU_BACKENDS='[{"name": "gpu0"}]')
    assert result.exit_code == BAD_SETTING
    assert result.stderr == "error: KENNING_ROUTER_GPU_BACKENDS[0].url: Field required\n"


def test_a_setting_that_is_not_json_says_so() -> None:
    result = run("serve", KENNING_ROUTER_GPU_BACKENDS='[{"name": "gpu0"')
    assert result.exit_code == BAD_SETTING
    assert result.stderr.startswith("error: KENNING_ROUTER_GPU_BACKENDS: not valid JSON (")
    assert len(result.stderr.splitlines()) == 1


def test_two_bad_settings_share_the_one_line() -> None:
    result = run("worker", KENNING_EMBEDDER="gpu", KENNING_GRAPH_NAME="a-b")
    assert result.stderr.count("\n") == 1
    assert "KENNING_EMBEDDER: Input should be 'local', 'ollama', 'hash' or 'words' (got 'gpu')" in (
        result.stderr
    )
    assert "KENNING_GRAPH_NAME: graph_name must be an ASCII identifier" in result.stderr


def test_the_router_without_a_backend_says_how_to_get_one() -> None:
    result = run("router")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: no backend configured: set KENNING_ROUTER_GPU")
    assert "kenning router demo" in result.stderr


def test_a_refused_connection_outside_the_database_driver_is_not_blamed_on_postgres() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except ConnectionRefusedError as error:
        assert explain(error) is None
    else:
        pytest.fail("nothing should listen on a port just released")


def test_a_bug_keeps_its_traceback_and_a_known_failure_does_not() -> None:
    probe = typer.Typer(cls=KenningGroup)

    @probe.command()
    def bug() -> None:
        raise RuntimeError("a bug")

    @probe.command()
    def misconfigured() -> None:
        raise ConfigurationError("the database is not migrated: run kenning migrate")

    runner = CliRunner()
    crashed = runner.invoke(probe, ["bug"])
    assert isinstance(crashed.exception, RuntimeError)
    assert crashed.stderr == ""
    failed = runner.invoke(probe, ["misconfigured"])
    assert failed.exit_code == 1
    assert failed.stderr == "error: the database is not migrated: run kenning migrate\n"


@pytest.mark.parametrize("command", [["serve"], ["worker"], ["router"]], ids=" ".join)
def test_a_log_format_that_is_neither_json_nor_text_is_named(command: list[str]) -> None:
    result = run(*command, KENNING_LOG_FORMAT="xml")
    assert result.exit_code == BAD_SETTING
    assert (
        result.stderr == "error: KENNING_LOG_FORMAT: Input should be 'json' or 'text' (got 'xml')\n"
    )

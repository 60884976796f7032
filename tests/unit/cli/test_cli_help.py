"""What a newcomer reads in ``kenning --help``: plain words, every default, every variable."""

from __future__ import annotations

import pytest

from kenning import __version__
from tests.support.cli_runner import run

COMMANDS = [
    [],
    ["serve"],
    ["migrate"],
    ["worker"],
    ["ingest"],
    ["ingest-repo"],
    ["crawl"],
    ["mcp"],
    ["schema"],
    ["router"],
    ["router", "demo"],
    ["keys"],
    ["keys", "create"],
    ["keys", "list"],
    ["keys", "revoke"],
    ["projects"],
    ["projects", "list"],
    ["projects", "move"],
    ["stack"],
    ["stack", "up"],
    ["stack", "down"],
    ["stack", "status"],
]


def flat(text: str) -> str:
    """Help text with click's line wrapping undone."""
    return " ".join(text.split())


def option_entries(text: str) -> list[str]:
    """Each option of a help page as one line, ``--help`` and ``--version`` left out."""
    section = text.split("Options:\n", 1)[1].split("\n\n", 1)[0]
    entries: list[str] = []
    for line in section.splitlines():
        if line.startswith("  -"):
            entries.append(line.strip())
        else:
            entries[-1] += " " + line.strip()
    return [e for e in entries if not e.startswith(("--help", "--version"))]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "kenning")
def test_help_is_plain_words_with_a_default_for_every_option(command: list[str]) -> None:
    result = run(*command, "--help")
    assert result.exit_code == 0, result.output
    text = result.stdout
    for markup in ("``", "<bool>", "<str>", "<int>", "<float>", "<int range>", "╭"):
        assert markup not in text, f"{markup!r} in kenning {' '.join(command)} --help"
    for entry in option_entries(text):
        flag, value = entry.split(" ", 2)[:2]
        if value.isupper():  # a flag shows no value name and defaults to off
            assert "[default:" in entry or "[required]" in entry, f"{flag} shows no default"


def test_top_level_help_lists_every_command_in_one_line_each() -> None:
    text = run("--help").stdout
    commands = text.split("Commands:", 1)[1].split("\n\n", 1)[0].strip().splitlines()
    names = [line.split()[0] for line in commands]
    assert names == [
        "serve", "migrate", "worker", "ingest", "ingest-repo", "crawl", "mcp", "schema",
        "router", "keys", "projects", "stack",
    ]  # fmt: skip
    assert not any(line.rstrip().endswith("...") for line in commands)
    assert "KENNING_*" in flat(text)


def test_serve_help_names_each_default_and_variable() -> None:
    text = flat(run("serve", "--help").stdout)
    assert "--port PORT TCP port to listen on [default: 8000; env KENNING_PORT]" in text
    assert "--host HOST Address to listen on [default: 127.0.0.1; env KENNING_HOST]" in text
    assert "[default: false; env KENNING_MIGRATE_ON_START]" in text


def test_router_help_says_urls_are_shown_and_how_its_variables_are_named() -> None:
    text = flat(run("router", "--help").stdout)
    assert "[default: 11430; env KENNING_ROUTER_PORT]" in text
    assert "[default: the value of KENNING_REDIS_URL; env KENNING_ROUTER_REDIS_URL]" in text
    assert "shows the backend URLs to anyone who can reach the port" in text
    assert "demo" in text


def test_version_prints_the_package_version() -> None:
    result = run("--version")
    assert result.exit_code == 0
    assert result.stdout == f"kenning {__version__}\n"


def test_a_port_out_of_range_is_a_usage_error() -> None:
    result = run("serve", "--port", "70000")
    assert result.exit_code == 2
    assert "70000 is not a TCP port (0 to 65535)" in result.stderr


@pytest.mark.parametrize("command", [[], ["keys", "create"], ["stack", "up"]], ids=" ".join)
def test_dash_h_is_help(command: list[str]) -> None:
    short, long = run(*command, "-h"), run(*command, "--help")
    assert short.exit_code == long.exit_code == 0, short.output
    assert short.stdout == long.stdout and short.stdout.startswith("Usage: ")


def test_a_bad_choice_names_the_option_and_the_choices_only() -> None:
    result = run("keys", "create", "--client", "c", "--role", "wizard")
    assert result.exit_code == 2
    assert result.stderr == (
        "error: Invalid value for '--role': 'wizard' is not one of 'ui', 'agent', 'admin' "
        "(see kenning keys create -h)\n"
    )

"""``kenning serve`` on a port something else listens on stops at once with one line, before
it checks the database or loads the app (the database here cannot be reached: its error
would show if serve got that far); a free port passes the check."""

from __future__ import annotations

import socket

import pytest

from kenning.cli.serve import check_port
from kenning.domain.errors import ConfigurationError
from tests.support.cli_runner import run

UNREACHABLE_DB = "postgresql://postgres@127.0.0.1:9/kenning"


def test_a_port_in_use_is_one_line_before_anything_else() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run("serve", "--port", str(port), KENNING_DATABASE_URL=UNREACHABLE_DB)
    assert result.exit_code == 1, result.output
    assert result.output.strip().splitlines() == [
        f"error: port {port} on 127.0.0.1 is in use: stop what listens there, or give another "
        "with --port or KENNING_PORT"
    ]


def test_a_free_port_and_port_zero_pass() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    check_port("127.0.0.1", port)
    check_port("127.0.0.1", 0)


def test_an_address_this_machine_does_not_have_says_why() -> None:
    with pytest.raises(ConfigurationError, match=r"^port 8000 on 192\.0\.2\.1 cannot be used"):
        check_port("192.0.2.1", 8000)

"""One log format per server process, from its first line to its last: JSON objects by
default (uvicorn's own lines too, without its terminal-colour copy of the message), plain
text lines with ``KENNING_LOG_FORMAT=text``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kenning.settings import Settings
from tests.support.server_process import start_server, stop_server

pytestmark = pytest.mark.e2e

TEXT_LINE = re.compile(
    r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (DEBUG|INFO|WARNING|ERROR|CRITICAL) \S+ "
)


def _lines_of_a_whole_run(settings: Settings, log: Path, **env: str) -> list[str]:
    process, _ = start_server(settings, log, **env)
    stop_server(process)
    return [line for line in log.read_text().splitlines() if line.strip()]


def test_every_line_of_a_server_is_one_json_object(
    migrated_settings: Settings, tmp_path: Path
) -> None:
    lines = _lines_of_a_whole_run(migrated_settings, tmp_path / "server.log")
    records = [json.loads(line) for line in lines]  # a line of another format fails here
    assert all({"ts", "level", "logger", "event"} <= record.keys() for record in records)
    assert not [record for record in records if "color_message" in record]
    events = [(record["logger"], record["event"]) for record in records]
    assert events[0][1].startswith("Started server process")  # uvicorn's first line
    assert ("kenning.app", "server.started") in events
    assert events[-1][1].startswith("Finished server process")


def test_text_lines_when_asked(migrated_settings: Settings, tmp_path: Path) -> None:
    lines = _lines_of_a_whole_run(
        migrated_settings, tmp_path / "server.log", KENNING_LOG_FORMAT="text"
    )
    assert [line for line in lines if not TEXT_LINE.match(line)] == []
    assert any(" INFO uvicorn.error Started server process" in line for line in lines)
    started = [line for line in lines if " kenning.app server.started " in line]
    assert len(started) == 1 and " host=127.0.0.1 " in started[0]


@pytest.mark.parametrize(
    ("env", "as_json"),
    [({}, True), ({"KENNING_LOG_FORMAT": "text"}, False), ({"KENNING_LOG_JSON": "false"}, False)],
)
def test_the_older_switch_still_means_text(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], as_json: bool
) -> None:
    for name in ("KENNING_LOG_FORMAT", "KENNING_LOG_JSON"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert Settings().log_as_json is as_json

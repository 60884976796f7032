"""``kenning serve --workers N``: a bad count is refused before anything starts; N > 1 hands
uvicorn the app factory, the options through the environment and a fresh metrics directory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kenning.cli.main import app

# What serve_processes sets for its workers; CliRunner restores each after the run.
PASSED_DOWN = ("KENNING_HOST", "KENNING_PORT", "PROMETHEUS_MULTIPROC_DIR")


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """What ``kenning serve`` gave uvicorn, with the environment its workers would see."""
    calls: list[dict[str, Any]] = []

    async def preflight(settings: Any) -> None:
        return None

    def run(target: Any, **options: Any) -> None:
        shared = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
        calls.append(
            {
                "target": target,
                **options,
                "env": {name: os.environ.get(name) for name in PASSED_DOWN},
                "dir_existed": shared is not None and Path(shared).is_dir(),
            }
        )

    monkeypatch.setattr("kenning.app.preflight", preflight)
    monkeypatch.setattr("kenning.app.create_app", lambda settings: "in-process app")
    monkeypatch.setattr("uvicorn.run", run)
    return calls


def serve(*args: str) -> Any:
    clean: dict[str, str | None] = {k: None for k in os.environ if k.startswith("KENNING_")}
    clean.update({name: None for name in PASSED_DOWN})
    env = {**clean, "KENNING_LOG_JSON": "false"}
    return CliRunner().invoke(app, ["serve", *args], env=env)


@pytest.mark.parametrize("count", ["0", "-1", "65", "100000"])
def test_a_bad_worker_count_is_refused_naming_the_option(
    served: list[dict[str, Any]], count: str
) -> None:
    result = serve("--workers", count)
    assert result.exit_code == 2
    assert "--workers" in result.output and "give 1 to 64" in result.output
    assert served == []


def test_a_word_is_refused_too(served: list[dict[str, Any]]) -> None:
    result = serve("--workers", "two")
    assert result.exit_code == 2
    assert "--workers" in result.output
    assert served == []


def test_one_worker_serves_in_process(served: list[dict[str, Any]]) -> None:
    result = serve()
    assert result.exit_code == 0, result.output
    (call,) = served
    assert call["target"] == "in-process app"
    assert "workers" not in call


def test_several_workers_build_the_app_in_each_process(served: list[dict[str, Any]]) -> None:
    result = serve("--workers", "3", "--port", "8123", "--host", "127.0.0.2")
    assert result.exit_code == 0, result.output
    (call,) = served
    assert call["target"] == "kenning.app:app_from_environment"
    assert call["factory"] is True
    assert call["workers"] == 3
    assert (call["host"], call["port"]) == ("127.0.0.2", 8123)
    # The spawned workers read their settings, options given here included, from the environment.
    assert call["env"]["KENNING_PORT"] == "8123"
    assert call["env"]["KENNING_HOST"] == "127.0.0.2"
    shared = call["env"]["PROMETHEUS_MULTIPROC_DIR"]
    assert call["dir_existed"]
    assert Path(shared).name.startswith("kenning-metrics-")
    assert not Path(shared).exists()  # a run's metrics files go with it

"""``kenning worker --processes N``: a bad count is refused, naming the option, before
anything connects."""

from __future__ import annotations

import os

import pytest
from typer.testing import CliRunner

from kenning.cli.main import app


@pytest.mark.parametrize("count", ["0", "-2", "65", "many"])
def test_a_bad_process_count_is_refused(monkeypatch: pytest.MonkeyPatch, count: str) -> None:
    started: list[object] = []
    monkeypatch.setattr("kenning.app.preflight", lambda settings: started.append(settings))
    clean: dict[str, str | None] = {k: None for k in os.environ if k.startswith("KENNING_")}
    result = CliRunner().invoke(app, ["worker", "--processes", count], env=clean)
    assert result.exit_code == 2
    assert "--processes" in result.output
    assert started == []

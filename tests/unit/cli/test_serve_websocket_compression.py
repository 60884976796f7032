"""``kenning serve`` hands uvicorn the websocket compression setting: off unless told
(compressing every small subscription message per socket dominated fan-out send time)."""

from __future__ import annotations

import os
from typing import Any

import pytest
from typer.testing import CliRunner

from kenning.cli.main import app


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The keyword arguments ``kenning serve`` gave uvicorn (nothing is started)."""
    calls: list[dict[str, Any]] = []

    async def preflight(settings: Any) -> None:
        return None

    monkeypatch.setattr("kenning.app.preflight", preflight)
    monkeypatch.setattr("kenning.app.create_app", lambda settings: object())
    monkeypatch.setattr("uvicorn.run", lambda app, **options: calls.append(options))
    return calls


def serve(**env: str) -> Any:
    clean: dict[str, str | None] = {k: None for k in os.environ if k.startswith("KENNING_")}
    return CliRunner().invoke(app, ["serve"], env={**clean, "KENNING_LOG_JSON": "false", **env})


def test_websocket_compression_is_off_by_default(served: list[dict[str, Any]]) -> None:
    result = serve()
    assert result.exit_code == 0, result.output
    (options,) = served
    assert options["ws_per_message_deflate"] is False
    assert options["ws"] == "websockets-sansio"


def test_websocket_compression_can_be_turned_on(served: list[dict[str, Any]]) -> None:
    result = serve(KENNING_WS_PER_MESSAGE_DEFLATE="true")
    assert result.exit_code == 0, result.output
    (options,) = served
    assert options["ws_per_message_deflate"] is True

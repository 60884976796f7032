"""``kenning router`` has no key store: it refuses to start unless told ``--allow-anonymous``,
and says so loudly when it is."""

from __future__ import annotations

import os
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner

from kenning.cli.main import app

CPU = {"KENNING_ROUTER_CPU_BACKEND": "http://127.0.0.1:9"}  # never called


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The apps ``kenning router`` would have served (uvicorn is not started)."""
    apps: list[Any] = []
    monkeypatch.setattr("uvicorn.run", lambda app, **_: apps.append(app))
    return apps


def run(*args: str) -> Any:
    clean: dict[str, str | None] = {k: None for k in os.environ if k.startswith("KENNING_")}
    env = {**clean, **CPU, "KENNING_LOG_JSON": "false"}
    return CliRunner().invoke(app, ["router", "--redis-url", "none", *args], env=env)


def test_without_allow_anonymous_it_refuses_to_start(served: list[Any]) -> None:
    result = run()
    assert result.exit_code == 2
    assert "kenning router takes no API keys" in result.stderr
    assert "--allow-anonymous" in result.stderr and "kenning serve" in result.stderr
    assert served == []  # nothing listened


async def test_with_allow_anonymous_it_warns_and_lets_anyone_announce(served: list[Any]) -> None:
    result = run("--allow-anonymous")
    assert result.exit_code == 0, result.output
    assert "warning: anonymous callers may control the router" in result.stderr
    (router_app,) = served
    transport = httpx.ASGITransport(app=router_app)
    async with httpx.AsyncClient(transport=transport, base_url="http://router") as http:
        announced = await http.post("/router/announce", json={"session": "trusted"})
        status = await http.get("/router/status")
    assert announced.status_code == 200 and announced.json()["session"] == "trusted"
    assert status.json()["backends"][0]["url"] == CPU["KENNING_ROUTER_CPU_BACKEND"]

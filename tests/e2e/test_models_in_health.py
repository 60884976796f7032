"""`health` and `/readyz` say whether each model Kenning is set to use can answer, for a
server that calls Ollama over HTTP and one that calls it through its own router."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.router.demo import FakeOllama
from kenning.settings import Settings
from tests.support.server_process import (
    create_key,
    free_port,
    graphql,
    start_server,
    stop_server,
)

pytestmark = pytest.mark.e2e

MODELS = "{ health { status models { role model state detail } } }"
ABSENT = {"KENNING_MODEL_EXTRACT": "absent:3b"}


@pytest.fixture(scope="module")
def ollama() -> Iterator[FakeOllama]:
    fake = FakeOllama("models")
    fake.start()
    yield fake
    fake.stop()


def _models(settings: Settings, log: Path, **env: str) -> tuple[Any, Any]:
    key = asyncio.run(create_key(settings, Scope(), Role.ADMIN))
    process, server = start_server(settings, log, **env)
    try:
        health = graphql(server, key, MODELS)["health"]
        ready = httpx.get(f"{server.url}/readyz", timeout=10)
    finally:
        stop_server(process)
    assert ready.status_code == 200, ready.text  # a model down does not make it unready
    return health, ready.json()


@pytest.mark.parametrize("through", ["ollama", "router"])
def test_each_model_is_ok_missing_or_not_configured(
    migrated_settings: Settings, tmp_path: Path, ollama: FakeOllama, through: str
) -> None:
    backend = (
        {"KENNING_OLLAMA_URL": ollama.url}
        if through == "ollama"
        else {"KENNING_ROUTER_CPU_BACKEND": ollama.url, "KENNING_OLLAMA_URL": "http://127.0.0.1:9"}
    )
    health, ready = _models(migrated_settings, tmp_path / "server.log", **backend, **ABSENT)
    assert health["status"] == "OK"
    assert health["models"] == [
        {"role": "structure", "model": "qwen2.5:7b", "state": "OK", "detail": "ok"},
        {
            "role": "extract",
            "model": "absent:3b",
            "state": "NOT_INSTALLED",
            "detail": "the backend does not hold absent:3b: `ollama pull absent:3b` there",
        },
        {
            "role": "vision",
            "model": None,
            "state": "NOT_CONFIGURED",
            "detail": "no model is set: set KENNING_MODEL_VISION",
        },
    ]
    assert ready["models"] == {m["role"]: m["detail"] for m in health["models"]}


def test_an_ollama_nobody_listens_at_is_unreachable(
    migrated_settings: Settings, tmp_path: Path
) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    health, _ = _models(migrated_settings, tmp_path / "server.log", KENNING_OLLAMA_URL=url)
    states = {m["role"]: (m["state"], m["detail"]) for m in health["models"]}
    assert states["structure"][0] == states["extract"][0] == "UNREACHABLE"
    assert f"ollama at {url}/api/tags unreachable" in states["structure"][1]
    assert states["vision"][0] == "NOT_CONFIGURED"

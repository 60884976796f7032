"""Whether each model Kenning is set to use can answer: judged from the backend's list of
models (a real fake Ollama over loopback), asked at most once per ``ttl``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from kenning.domain.models.health import ModelRole, ModelState, ModelWatch, holds, judged
from kenning.domain.models.ports import ModelCallError
from kenning.router.demo import FakeOllama
from kenning.storage.models import OllamaModelClient
from tests.fakes.model_client import FakeModelClient
from tests.support.server_process import free_port

ROLES = (
    ModelRole("structure", "qwen2.5:7b", "KENNING_MODEL_STRUCTURE"),
    ModelRole("extract", "absent:3b", "KENNING_MODEL_EXTRACT"),
    ModelRole("vision", None, "KENNING_MODEL_VISION"),
)


@pytest.fixture(scope="module")
def ollama() -> Iterator[FakeOllama]:
    fake = FakeOllama("health")
    fake.start()
    yield fake
    fake.stop()


def test_an_untagged_name_means_latest() -> None:
    assert holds(frozenset({"llava:latest"}), "llava")
    assert holds(frozenset({"qwen2.5:7b"}), "qwen2.5:7b")
    assert not holds(frozenset({"qwen2.5:7b"}), "qwen2.5")
    assert not holds(frozenset({"llava:13b"}), "llava")


def test_each_role_is_judged_by_what_the_backend_holds() -> None:
    health = {h.role: (h.state, h.detail) for h in judged(ROLES, frozenset({"qwen2.5:7b"}))}
    assert health == {
        "structure": (ModelState.OK, "ok"),
        "extract": (
            ModelState.NOT_INSTALLED,
            "the backend does not hold absent:3b: `ollama pull absent:3b` there",
        ),
        "vision": (ModelState.NOT_CONFIGURED, "no model is set: set KENNING_MODEL_VISION"),
    }


def test_a_backend_that_cannot_be_asked_makes_every_set_model_unreachable() -> None:
    health = judged(ROLES, "ollama at http://x/api/tags unreachable: ConnectError")
    assert [(h.role, h.state) for h in health] == [
        ("structure", ModelState.UNREACHABLE),
        ("extract", ModelState.UNREACHABLE),
        ("vision", ModelState.NOT_CONFIGURED),
    ]
    assert health[0].detail == "ollama at http://x/api/tags unreachable: ConnectError"


async def test_the_backend_is_asked_at_most_once_per_ttl() -> None:
    now = [100.0]
    client = FakeModelClient()
    asked: list[float] = []
    inner = client.installed

    async def counted() -> frozenset[str]:
        asked.append(now[0])
        return await inner()

    client.installed = counted  # type: ignore[method-assign]
    watch = ModelWatch(client, ROLES, ttl=10, clock=lambda: now[0])
    first = await watch.health()
    client.models = ModelCallError("ollama went away", transient=True)
    now[0] = 109.9
    assert await watch.health() == first  # still within the ttl: not asked again
    now[0] = 110.0
    later = await watch.health()
    assert asked == [100.0, 110.0]
    assert later[0].state is ModelState.UNREACHABLE and later[0].detail == "ollama went away"


async def test_nothing_is_asked_when_no_model_is_set() -> None:
    client = FakeModelClient()
    client.models = ModelCallError("must not be asked", transient=True)
    [vision] = await ModelWatch(client, ROLES[2:]).health()
    assert vision.state is ModelState.NOT_CONFIGURED


async def test_ollama_lists_what_it_holds(ollama: FakeOllama) -> None:
    client = OllamaModelClient(ollama.url)
    try:
        installed = await client.installed()
    finally:
        await client.aclose()
    assert {"qwen2.5:7b", "llama3.2:1b"} <= installed


async def test_an_ollama_nobody_listens_at_is_a_model_call_error() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    client = OllamaModelClient(url)
    try:
        with pytest.raises(ModelCallError) as raised:
            await client.installed()
    finally:
        await client.aclose()
    assert raised.value.transient and f"{url}/api/tags unreachable" in raised.value.message

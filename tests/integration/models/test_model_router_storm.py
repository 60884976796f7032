"""A 503 storm through the in-process router: a short one is ridden out by the router's own
busy retries; a longer one reaches Kenning as a transient error, and a later retry works."""

from __future__ import annotations

import pytest

from kenning.domain.models.ports import (
    ChatMessage,
    ChatRequest,
    ModelCallError,
    ModelPriority,
    Role,
)
from kenning.storage.models import RoutedModelClient
from tests.fakes.ollama import FakeFactory
from tests.support.router_harness import router_settings, serving_routers

REQUEST = ChatRequest("qwen2.5:7b", (ChatMessage(Role.USER, "extract"),), ModelPriority.BACKGROUND)


async def test_a_storm_longer_than_the_routers_retries_is_transient(
    fake_ollama_factory: FakeFactory,
) -> None:
    cpu = fake_ollama_factory("cpu")
    cpu.script(["ridden out", "after the storm"])
    settings = router_settings([], cpu, busy_retries=2)
    async with serving_routers() as start:
        models = RoutedModelClient((await start(settings)).router.client())
        cpu.busy_for(2)  # the router's two retries absorb it
        assert (await models.chat(REQUEST)).content == "ridden out"
        cpu.busy_for(3)  # one more than the router retries
        with pytest.raises(ModelCallError) as caught:
            await models.chat(REQUEST)
        assert caught.value.transient and "503" in str(caught.value)
        assert (await models.chat(REQUEST)).content == "after the storm"
    assert cpu.count("/api/chat", outcome="ok") == 2

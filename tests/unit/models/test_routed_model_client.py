"""The model client through the in-process router: body, priority, failures."""

from __future__ import annotations

from typing import Any

import pytest

from kenning.domain.models.ports import (
    ChatMessage,
    ChatRequest,
    ModelCallError,
    ModelPriority,
    Role,
)
from kenning.router import BackendFailure, NoBackendAvailable, RouterClient, UpstreamError
from kenning.storage.models import RoutedModelClient

SCHEMA = {"type": "object"}


class ScriptedClient(RouterClient):
    """Answers with ``answer``, or raises what the test put in ``failure``."""

    def __init__(self, answer: dict[str, Any] | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any], int]] = []
        self.failure: Exception | None = None
        self.answer = answer or {"model": "qwen2.5:7b", "message": {"content": "{}"}}

    async def request(self, path: str, payload: dict[str, Any], priority: int) -> dict[str, Any]:
        self.calls.append((path, payload, int(priority)))
        if self.failure is not None:
            raise self.failure
        return self.answer


def chat_request(priority: ModelPriority) -> ChatRequest:
    return ChatRequest("qwen2.5:7b", (ChatMessage(Role.USER, "hello"),), priority, schema=SCHEMA)


@pytest.mark.parametrize("priority", list(ModelPriority))
async def test_the_chat_goes_to_the_router_at_its_priority(priority: ModelPriority) -> None:
    client = ScriptedClient(
        {"model": "qwen2.5:7b", "message": {"content": "ok"}, "total_duration": 4_000_000,
         "prompt_eval_count": 3, "eval_count": 1}
    )  # fmt: skip
    models = RoutedModelClient(client)
    reply = await models.chat(chat_request(priority))
    [(path, payload, sent)] = client.calls
    assert path == "/api/chat" and sent == int(priority)
    assert payload["format"] == SCHEMA and payload["stream"] is False
    assert payload["messages"] == [{"role": "user", "content": "hello"}]
    assert (reply.content, reply.duration_ms, reply.output_tokens) == ("ok", 4.0, 1)
    await models.aclose()


@pytest.mark.parametrize(
    ("failure", "transient"),
    [
        (UpstreamError(503, "server busy, please try again"), True),
        (UpstreamError(404, 'model "nope" not found'), False),
        (UpstreamError(400, "invalid format"), False),
        (NoBackendAvailable("no healthy backend"), True),
        (BackendFailure("gpu0", "ConnectError"), True),
        (ValueError("Expecting value"), False),
    ],
)
async def test_router_failures_say_whether_to_retry(failure: Exception, transient: bool) -> None:
    client = ScriptedClient()
    client.failure = failure
    with pytest.raises(ModelCallError) as caught:
        await RoutedModelClient(client).chat(chat_request(ModelPriority.BACKGROUND))
    assert caught.value.transient is transient


@pytest.mark.parametrize(
    ("answer", "transient"),
    [
        ({"error": "server busy, please try again"}, True),
        ({"error": "runner crashed"}, False),
        ({"done": True}, False),
    ],
)
async def test_a_200_without_a_reply_is_an_error(answer: dict[str, Any], transient: bool) -> None:
    with pytest.raises(ModelCallError) as caught:
        await RoutedModelClient(ScriptedClient(answer)).chat(
            chat_request(ModelPriority.INTERACTIVE)
        )
    assert caught.value.transient is transient

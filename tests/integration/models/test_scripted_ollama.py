"""The model adapter and ``structured_call`` against the fake Ollama's scripted replies:
valid JSON, invalid then valid, always invalid, slow, a 503 storm, an unknown model."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pydantic
import pytest

from kenning.domain.models.ports import (
    ChatMessage,
    ChatRequest,
    ModelCallError,
    ModelOutputError,
    ModelPriority,
    Role,
)
from kenning.domain.models.structured import StructuredPrompt, output_schema, structured_call
from kenning.router.demo import FakeOllama
from kenning.storage.models import OllamaModelClient
from tests.fakes.ollama import FakeFactory, Reply
from tests.support.router_harness import wait_until

MODEL = "qwen2.5:7b"


class Person(pydantic.BaseModel):
    name: str
    born: int


def ask(priority: ModelPriority = ModelPriority.BACKGROUND) -> StructuredPrompt[Person]:
    return StructuredPrompt(
        model=MODEL, system="Extract the person.", prompt="Ada, born 1815.", output=Person,
        priority=priority,
    )  # fmt: skip


def chat(model: str = MODEL) -> ChatRequest:
    return ChatRequest(model, (ChatMessage(Role.USER, "hello"),), ModelPriority.BACKGROUND)


def recording(fake: FakeOllama, answers: list[str]) -> list[dict[str, Any]]:
    """Answer from ``answers`` in order through the replier; the bodies it saw."""
    seen: list[dict[str, Any]] = []

    def reply(body: dict[str, Any]) -> str:
        seen.append(body)
        return answers[min(len(seen), len(answers)) - 1]

    fake.replier = reply
    return seen


async def test_valid_json_is_one_background_call(fake_ollama_factory: FakeFactory) -> None:
    fake = fake_ollama_factory()
    fake.script(['{"name": "Ada", "born": 1815}'])
    client = OllamaModelClient(fake.url, timeout=5)
    result = await structured_call(client, ask())
    await client.aclose()
    assert result.value == Person(name="Ada", born=1815)
    assert [a.number for a in result.attempts] == [1] and result.model == MODEL
    [record] = fake.records
    assert (record.endpoint, record.priority, record.outcome) == ("/api/chat", "3", "ok")


async def test_invalid_then_valid_feeds_the_error_back(fake_ollama_factory: FakeFactory) -> None:
    fake = fake_ollama_factory()
    seen = recording(fake, ['{"name": "Ada"}', '{"name": "Ada", "born": 1815}'])
    client = OllamaModelClient(fake.url, timeout=5)
    result = await structured_call(client, ask(ModelPriority.INTERACTIVE))
    await client.aclose()
    assert result.value.born == 1815 and len(result.attempts) == 2
    assert result.attempts[0].error is not None and "born" in result.attempts[0].error
    first, second = seen
    assert first["format"] == output_schema(Person) and first["model"] == MODEL
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert second["messages"][2]["content"] == '{"name": "Ada"}'
    assert "born: Field required" in second["messages"][3]["content"]
    assert [r.priority for r in fake.records] == ["1", "1"]


async def test_always_invalid_is_a_typed_error(fake_ollama_factory: FakeFactory) -> None:
    fake = fake_ollama_factory()
    recording(fake, ["I think her name was Ada."])
    client = OllamaModelClient(fake.url, timeout=5)
    with pytest.raises(ModelOutputError) as caught:
        await structured_call(client, ask())
    await client.aclose()
    assert len(caught.value.attempts) == 1 + 3 and caught.value.model == MODEL
    assert all(a.error and "Invalid JSON" in a.error for a in caught.value.attempts)
    assert fake.count("/api/chat", outcome="ok") == 4


async def test_a_reply_slower_than_the_timeout_is_transient(
    fake_ollama_factory: FakeFactory,
) -> None:
    fake = fake_ollama_factory()
    fake.script([Reply('{"name": "Ada", "born": 1815}', delay=3.0)])
    client = OllamaModelClient(fake.url, timeout=0.3)
    with pytest.raises(ModelCallError) as caught:
        await client.chat(chat())
    await client.aclose()
    assert caught.value.transient and "ReadTimeout" in str(caught.value)
    # The fake saw the client leave and stopped generating, as Ollama does.
    await wait_until(lambda: fake.count(outcome="cancelled") == 1)


async def test_a_503_storm_is_transient_and_a_retry_after_it_succeeds(
    fake_ollama_factory: FakeFactory,
) -> None:
    fake = fake_ollama_factory()
    fake.busy_for(2)
    fake.script(["after the storm"])
    client = OllamaModelClient(fake.url, timeout=5)
    for _ in range(2):
        with pytest.raises(ModelCallError) as caught:
            await client.chat(chat())
        assert caught.value.transient and "503" in str(caught.value)
    assert (await client.chat(chat())).content == "after the storm"
    await client.aclose()
    assert fake.count("/api/chat", outcome="ok") == 1


async def test_an_unknown_model_is_permanent(fake_ollama_factory: FakeFactory) -> None:
    fake = fake_ollama_factory()
    client = OllamaModelClient(fake.url, timeout=5)
    with pytest.raises(ModelCallError) as caught:
        await client.chat(chat("no-such-model:1b"))
    await client.aclose()
    assert not caught.value.transient and "404" in str(caught.value)


async def test_scripted_replies_stream_in_pieces_then_the_replier_answers(
    fake_ollama_factory: FakeFactory,
) -> None:
    fake = fake_ollama_factory()
    fake.script(['{"a": [1, 2]}  and more', Reply("generated", delay=0.05)])
    fake.replier = lambda body: f"{body['model']} has {len(body['messages'])} message(s)"
    body = {"model": MODEL, "messages": [{"role": "user", "content": "hi"}]}
    async with httpx.AsyncClient(base_url=fake.url, timeout=5) as http:
        async with http.stream("POST", "/api/chat", json=body) as response:
            lines = [json.loads(line) async for line in response.aiter_lines()]
        generated = await http.post(
            "/api/generate", json={"model": MODEL, "prompt": "go", "stream": False}
        )
        replied = await http.post("/api/chat", json={**body, "stream": False})
    *streamed, final = lines
    assert [line["message"]["content"] for line in streamed] == [
        '{"a": ',
        "[1, ",
        "2]}  ",
        "and ",
        "more",
    ]
    assert final["done"] is True and final["eval_count"] == 5
    assert generated.json()["response"] == "generated"
    assert replied.json()["message"]["content"] == f"{MODEL} has 1 message(s)"
    assert fake.scripted_left == 0

"""The HTTP model adapter against an emulated ``/api/chat`` (httpx.MockTransport)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from kenning.domain.models.failures import is_transient, retry_after_seconds
from kenning.domain.models.ports import (
    ChatMessage,
    ChatRequest,
    ModelCallError,
    ModelPriority,
    Role,
)
from kenning.router import Router, RouterSettings
from kenning.settings import Settings
from kenning.storage.models import OllamaModelClient, RoutedModelClient, create_model_client

Handler = Callable[[httpx.Request], httpx.Response]
SCHEMA: dict[str, Any] = {"type": "object", "properties": {"name": {"type": "string"}}}


def chat_request(
    priority: ModelPriority = ModelPriority.BACKGROUND, schema: dict[str, Any] | None = None
) -> ChatRequest:
    return ChatRequest(
        "qwen2.5:7b",
        (ChatMessage(Role.SYSTEM, "extract"), ChatMessage(Role.USER, "Ada wrote notes")),
        priority,
        schema=schema,
    )


def answering(
    body: dict[str, object], status: int = 200, headers: dict[str, str] | None = None
) -> Handler:
    def handle(_: httpx.Request) -> httpx.Response:
        return httpx.Response(status, json=body, headers=headers)

    return handle


async def call(handler: Handler, request: ChatRequest | None = None) -> ModelCallError:
    client = OllamaModelClient("http://ollama.test:11434/", transport=httpx.MockTransport(handler))
    try:
        with pytest.raises(ModelCallError) as caught:
            await client.chat(request or chat_request())
    finally:
        await client.aclose()
    return caught.value


async def test_the_body_priority_and_reply_are_ollamas() -> None:
    seen: list[httpx.Request] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        answer = {
            "model": "qwen2.5:7b",
            "message": {"role": "assistant", "content": '{"name": "Ada"}'},
            "done": True,
            "total_duration": 2_500_000_000,
            "prompt_eval_count": 12,
            "eval_count": 7,
        }
        return httpx.Response(200, json=answer)

    client = OllamaModelClient("http://ollama.test:11434/", transport=httpx.MockTransport(handle))
    reply = await client.chat(chat_request(ModelPriority.INTERACTIVE, SCHEMA))
    await client.aclose()

    [request] = seen
    assert str(request.url) == "http://ollama.test:11434/api/chat"
    assert request.headers["X-Ollama-Priority"] == "1"
    assert json.loads(request.content) == {
        "model": "qwen2.5:7b",
        "messages": [
            {"role": "system", "content": "extract"},
            {"role": "user", "content": "Ada wrote notes"},
        ],
        "stream": False,
        "format": SCHEMA,
        "options": {"temperature": 0},
    }
    assert reply.content == '{"name": "Ada"}' and reply.model == "qwen2.5:7b"
    assert reply.duration_ms == 2500.0
    assert (reply.prompt_tokens, reply.output_tokens) == (12, 7)


async def test_without_a_schema_no_format_goes_out_and_time_is_measured() -> None:
    seen: list[dict[str, object]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(200, json={"message": {"content": "free text"}})

    client = OllamaModelClient("http://ollama.test", transport=httpx.MockTransport(handle))
    reply = await client.chat(chat_request())
    assert "format" not in seen[0]
    assert reply.content == "free text" and reply.model == "qwen2.5:7b"
    assert reply.duration_ms > 0 and reply.prompt_tokens is None


@pytest.mark.parametrize(
    ("status", "message", "transient"),
    [
        (503, "server busy, please try again.  maximum pending requests exceeded", True),
        (429, "too many requests", True),
        (502, "bad gateway", True),
        (504, "gateway timeout", True),
        (408, "request timeout", True),
        (500, "llama runner is loading, try again", True),
        (404, 'model "nope" not found, try pulling it first', False),
        (400, "invalid format: expected a JSON schema", False),
        (500, "fake failure", False),
    ],
)
async def test_error_answers_say_whether_to_retry(
    status: int, message: str, transient: bool
) -> None:
    error = await call(answering({"error": message}, status))
    assert error.transient is transient
    assert str(status) in str(error) and message in str(error)


async def test_retry_after_is_kept() -> None:
    error = await call(answering({"error": "busy"}, 503, headers={"Retry-After": "7"}))
    assert error.transient and error.retry_after == 7.0
    assert retry_after_seconds("Wed, 21 Oct 2026 07:28:00 GMT") is None
    assert retry_after_seconds("-1") is None and retry_after_seconds(None) is None


async def test_an_error_line_under_200_is_an_error() -> None:
    def handle(_: httpx.Request) -> httpx.Response:
        content = b'{"message":{"content":"par"}}\n{"error":"server busy, try again"}\n'
        return httpx.Response(200, content=content)

    assert (await call(handle)).transient is True
    assert (await call(answering({"error": "unsupported"}))).transient is False


@pytest.mark.parametrize(
    "content", [b"<html>proxy</html>", b'{"done": true}', b'{"message": {"content": 3}}']
)
async def test_a_200_that_is_not_a_chat_answer_is_permanent(content: bytes) -> None:
    error = await call(lambda _: httpx.Response(200, content=content))
    assert error.transient is False


@pytest.mark.parametrize(
    "failure",
    [httpx.ReadTimeout("slow"), httpx.ConnectError("refused"), httpx.RemoteProtocolError("reset")],
)
async def test_network_failures_are_transient(failure: httpx.HTTPError) -> None:
    def handle(_: httpx.Request) -> httpx.Response:
        raise failure

    error = await call(handle)
    assert error.transient is True and type(failure).__name__ in str(error)


async def test_an_injected_client_stays_open() -> None:
    handle = answering({"message": {"content": ""}})
    http = httpx.AsyncClient(transport=httpx.MockTransport(handle))
    client = OllamaModelClient("http://ollama.test", client=http)
    await client.aclose()
    assert (await client.chat(chat_request())).content == ""
    await http.aclose()
    with pytest.raises(ValueError, match="either client or transport"):
        OllamaModelClient("http://x", client=http, transport=httpx.MockTransport(handle))


def test_transient_is_decided_by_status_or_message() -> None:
    assert is_transient(503, "") and is_transient(200, "Server Busy")
    assert not is_transient(404, "model not found")


async def test_the_factory_routes_when_the_process_runs_a_router() -> None:
    settings = Settings(ollama_url="http://gpu.test:11434", ollama_timeout=3)
    direct = create_model_client(settings, router=None)
    assert isinstance(direct, OllamaModelClient)
    await direct.aclose()
    router = Router(RouterSettings(cpu_backend="http://127.0.0.1:9"))  # built, never started
    assert isinstance(create_model_client(settings, router=router), RoutedModelClient)

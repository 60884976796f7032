"""``OllamaModelClient``: ``POST {base_url}/api/chat``, non-streaming, priority in a header.

Talks to a real Ollama, to Kenning's router mounted at ``/ollama``, or to any
Ollama-compatible URL. Failures become ``ModelCallError``: transient for timeouts, refused or
reset connections, 408/429/502/503/504 and "server busy"/"try again" (``Retry-After`` kept),
permanent for the rest (404 unknown model, other 4xx, an answer that is not chat JSON).
"""

from __future__ import annotations

import time
from typing import Any

import httpx

from kenning.domain.models.failures import (
    answer_json,
    error_in,
    is_transient,
    retry_after_seconds,
)
from kenning.domain.models.ports import ChatReply, ChatRequest, ModelCallError
from kenning.storage.models.chat_body import (
    CHAT_PATH,
    PRIORITY_HEADER,
    chat_payload,
    chat_reply,
)

# Seconds; behind the router a background call may wait its turn, and a 7B model writing a
# page of JSON on a CPU takes a minute.
DEFAULT_TIMEOUT = 120.0
CONNECT_TIMEOUT = 5.0


class OllamaModelClient:
    """Chat calls through Ollama's ``/api/chat`` over HTTP.

    Example: ``OllamaModelClient("http://127.0.0.1:11434", timeout=60)``. Pass ``client`` (or
    ``transport``) to reuse a client or to test without a network; an injected client is
    left open by ``aclose()``.
    """

    def __init__(
        self,
        base_url: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        client: httpx.AsyncClient | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        if client is not None and transport is not None:
            raise ValueError("pass either client or transport, not both")
        self._url = base_url.rstrip("/") + CHAT_PATH
        self._tags_url = base_url.rstrip("/") + "/api/tags"
        self._owns_client = client is None
        if client is None:
            client = httpx.AsyncClient(
                timeout=httpx.Timeout(timeout, connect=min(CONNECT_TIMEOUT, timeout)),
                transport=transport,
            )
        self._client = client

    async def chat(self, request: ChatRequest) -> ChatReply:
        """The whole answer; raises ``ModelCallError`` (``transient`` says retry later)."""
        started = time.perf_counter()
        try:
            response = await self._client.post(
                self._url,
                json=chat_payload(request),
                headers={PRIORITY_HEADER: str(int(request.priority))},
            )
        except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            raise ModelCallError(
                f"ollama at {self._url} unreachable: {type(exc).__name__}: {exc}",
                transient=True,
            ) from exc
        except httpx.HTTPError as exc:  # bad URL scheme, local protocol misuse, ...
            raise ModelCallError(
                f"ollama request to {self._url} failed: {type(exc).__name__}: {exc}",
                transient=False,
            ) from exc
        measured_ms = (time.perf_counter() - started) * 1000
        body = answer_json(response.content)
        if response.status_code != 200 or error_in(body) is not None:
            raise _status_error(response, body, request.model)
        if body is None:
            raise ModelCallError(
                f"ollama answered {request.model} with something that is not JSON",
                transient=False,
            )
        return chat_reply(body, request, measured_ms)

    async def installed(self) -> frozenset[str]:
        """The models Ollama holds (``/api/tags``), asked within ``CONNECT_TIMEOUT``."""
        try:
            response = await self._client.get(self._tags_url, timeout=CONNECT_TIMEOUT)
        except httpx.HTTPError as exc:
            raise ModelCallError(
                f"ollama at {self._tags_url} unreachable: {type(exc).__name__}: {exc}",
                transient=True,
            ) from exc
        body = answer_json(response.content)
        if response.status_code != 200 or not isinstance(body, dict):
            raise ModelCallError(
                f"ollama at {self._tags_url} answered {response.status_code}", transient=True
            )
        return frozenset(
            name
            for model in body.get("models", [])
            if isinstance(model, dict) and (name := model.get("name") or model.get("model"))
        )

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()


def _status_error(response: httpx.Response, body: Any, model: str) -> ModelCallError:
    message = error_in(body) or response.text[:200]
    return ModelCallError(
        f"ollama answered {response.status_code} for {model}: {message}",
        transient=is_transient(response.status_code, message),
        retry_after=retry_after_seconds(response.headers.get("retry-after")),
    )

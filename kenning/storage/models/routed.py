"""``RoutedModelClient``: Kenning's model calls when the model router runs in-process.

Same body and reply as `OllamaModelClient`, but each call goes to the router's
`RouterClient`, so it is queued, placed and preempted like any request on ``/ollama``
without a loopback hop: a background (P3) call preempted by a P0 chat is re-run on another
backend (the CPU) and still answers whole.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from kenning.domain.models.failures import error_in, is_transient
from kenning.domain.models.ports import ChatReply, ChatRequest, ModelCallError
from kenning.router import NoBackendAvailable, RouterClient, RouterError, UpstreamError
from kenning.storage.models.chat_body import CHAT_PATH, chat_payload, chat_reply


class RoutedModelClient:
    """Chat calls through the in-process router.

    Example: ``RoutedModelClient(router.client())``. The router belongs to the app:
    ``aclose()`` leaves it running.
    """

    def __init__(
        self,
        client: RouterClient,
        installed: Callable[[], Awaitable[frozenset[str]]] | None = None,
    ) -> None:
        self._client = client
        self._installed = installed

    async def chat(self, request: ChatRequest) -> ChatReply:
        """The whole answer; raises ``ModelCallError`` (``transient`` says retry later)."""
        started = time.perf_counter()
        try:
            answer = await self._client.request(
                CHAT_PATH, chat_payload(request), int(request.priority)
            )
        except UpstreamError as exc:
            raise ModelCallError(
                f"ollama answered {exc.status} for {request.model} through the router:"
                f" {exc.message}",
                transient=is_transient(exc.status, exc.message),
            ) from exc
        except NoBackendAvailable as exc:
            raise ModelCallError(
                f"the model router has no backend for {request.model}: {exc}", transient=True
            ) from exc
        except RouterError as exc:  # a backend failure the router could not route around
            raise ModelCallError(f"the model router failed: {exc}", transient=True) from exc
        except ValueError as exc:  # a 200 answer that is not JSON
            raise ModelCallError(
                f"ollama answered {request.model} with something that is not JSON: {exc}",
                transient=False,
            ) from exc
        message = error_in(answer)
        if message is not None:
            raise ModelCallError(
                f"ollama answered {request.model} with an error: {message}",
                transient=is_transient(200, message),
            )
        return chat_reply(answer, request, (time.perf_counter() - started) * 1000)

    async def installed(self) -> frozenset[str]:
        """The models the router's healthy backends hold (``Router.installed_models``)."""
        if self._installed is None:
            raise ModelCallError("this model client cannot list models", transient=False)
        try:
            return await self._installed()
        except RouterError as exc:
            raise ModelCallError(
                f"the model router cannot list models: {exc}", transient=True
            ) from exc

    async def aclose(self) -> None:
        return None

"""The one fake of the ``ModelClient`` port (``kenning.domain.models.ports``)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from kenning.domain.models.ports import ChatReply, ChatRequest, ModelCallError

Answer = str | ModelCallError
Replier = Callable[[ChatRequest], Answer]


class FakeModelClient:
    """Answers chat calls from a script, every request recorded in ``requests``.

    ``replies`` are used in order (a ``ModelCallError`` among them is raised); once they
    run out, ``replier`` answers (it sees the request), else the last reply repeats.
    ``delay`` seconds are waited before each answer.

    Example: ``FakeModelClient(replies=['{"oops": 1}', '{"entities": []}'])``.
    """

    def __init__(
        self,
        replies: list[Answer] | None = None,
        *,
        replier: Replier | None = None,
        delay: float = 0.0,
    ) -> None:
        self.replies = list(replies or [])
        self.replier = replier
        self.delay = delay
        self.requests: list[ChatRequest] = []
        self._last: Answer | None = None
        self.closed = False
        # What ``installed`` answers: the models held, or the error asking raises.
        self.models: frozenset[str] | ModelCallError = frozenset({"qwen2.5:7b"})

    @property
    def calls(self) -> int:
        return len(self.requests)

    async def chat(self, request: ChatRequest) -> ChatReply:
        self.requests.append(request)
        if self.delay:
            await asyncio.sleep(self.delay)
        answer = self._next(request)
        if isinstance(answer, ModelCallError):
            raise answer
        return ChatReply(content=answer, model=request.model, duration_ms=self.delay * 1000)

    async def installed(self) -> frozenset[str]:
        if isinstance(self.models, ModelCallError):
            raise self.models
        return self.models

    def _next(self, request: ChatRequest) -> Answer:
        if self.replies:
            self._last = self.replies.pop(0)
            return self._last
        if self.replier is not None:
            return self.replier(request)
        if self._last is None:
            raise AssertionError("FakeModelClient has no reply scripted")
        return self._last

    async def aclose(self) -> None:
        self.closed = True

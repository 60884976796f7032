"""In-process client: Kenning's own model calls go through the router without HTTP."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

from kenning.router.errors import UpstreamError
from kenning.router.http.ndjson import message_of
from kenning.router.relay import Job, Relay
from kenning.router.scheduling.policy import Priority, PriorityDecision, PrioritySource


class RouterClient:
    """Embeddings (and other non-streaming calls) with an explicit priority.

    Example: ``vectors = await client.embed(["a", "b"], "all-minilm", Priority.BACKGROUND)``.
    """

    def __init__(self, relay: Relay) -> None:
        self._relay = relay

    async def embed(
        self, texts: Sequence[str], model: str, priority: Priority | int = Priority.BACKGROUND
    ) -> list[list[float]]:
        """L2-normalized vectors from /api/embed, one per text, in order."""
        if not texts:
            return []
        answer = await self.request("/api/embed", {"model": model, "input": list(texts)}, priority)
        return cast(list[list[float]], answer["embeddings"])

    async def request(
        self, path: str, payload: dict[str, Any], priority: Priority | int
    ) -> dict[str, Any]:
        """A non-streaming call such as ``/api/chat`` with ``"stream": False``; raises
        `UpstreamError` on an error answer."""
        body = json.dumps({**payload, "stream": False}).encode()
        decision = PriorityDecision(Priority(priority), PrioritySource.HEADER)
        job = Job(path, body, str(payload.get("model", "")), decision)
        answer = await self._relay.buffered(job)
        if answer.status != 200:
            raise UpstreamError(answer.status, message_of(answer.body))
        return cast(dict[str, Any], answer.json())

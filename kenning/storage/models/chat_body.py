"""The body of Ollama's ``/api/chat`` both adapters send, and the reply they read back.

Sent: ``{"model", "messages": [{"role", "content", "images" (base64, only when any)}],
"stream": false, "format": <JSON schema> (only when given), "options": {...}}``. Read:
``message.content``, the model that answered, ``total_duration`` (ns) and the token counts
``prompt_eval_count``/``eval_count``.
"""

from __future__ import annotations

from typing import Any

from kenning.domain.models.ports import ChatMessage, ChatReply, ChatRequest, ModelCallError

CHAT_PATH = "/api/chat"
PRIORITY_HEADER = "X-Ollama-Priority"


def chat_payload(request: ChatRequest) -> dict[str, Any]:
    """The JSON body of one non-streaming chat call."""
    payload: dict[str, Any] = {
        "model": request.model,
        "messages": [_message(m) for m in request.messages],
        "stream": False,
        "options": dict(request.options),
    }
    if request.schema is not None:
        payload["format"] = dict(request.schema)
    return payload


def _message(message: ChatMessage) -> dict[str, Any]:
    sent: dict[str, Any] = {"role": message.role.value, "content": message.content}
    if message.images:
        sent["images"] = list(message.images)
    return sent


def chat_reply(body: Any, request: ChatRequest, measured_ms: float) -> ChatReply:
    """The reply in a 200 answer; a body without ``message.content`` is a permanent error."""
    message = body.get("message") if isinstance(body, dict) else None
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise ModelCallError(
            f"{request.model} answered without message.content (is this Ollama's /api/chat?)",
            transient=False,
        )
    nanoseconds = body.get("total_duration")
    duration_ms = (
        nanoseconds / 1e6
        if isinstance(nanoseconds, int | float) and not isinstance(nanoseconds, bool)
        else measured_ms
    )
    return ChatReply(
        content=content,
        model=str(body.get("model") or request.model),
        duration_ms=float(duration_ms),
        prompt_tokens=_count(body.get("prompt_eval_count")),
        output_tokens=_count(body.get("eval_count")),
    )


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None

"""The ``ModelClient`` port: one chat call with a priority, optionally constrained to a JSON
schema (Ollama structured outputs), answered whole.

    KenningError
    ├── ModelCallError          the backend could not answer; ``transient`` says retry later
    │   ├── transient=True      timeout, refused/reset connection, 408/429/502/503/504, busy
    │   └── transient=False     unknown model, bad request, an answer that is not JSON
    └── ModelOutputError        the answer stayed invalid after every retry (see structured.py)

Adapters live in ``kenning.storage.models``; this module imports no driver.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Any, Protocol

from kenning.domain.errors import ErrorCode, KenningError


class ModelPriority(IntEnum):
    """The router's scale as Kenning's model calls use it (``X-Ollama-Priority``).

    An agent waiting on the answer is INTERACTIVE (1); reading a queued document (describing
    its images) is DOCUMENT (2); extraction and other background work is BACKGROUND (3),
    which a P0 chat preempts and the router may re-run on CPU.
    """

    CRITICAL = 0
    INTERACTIVE = 1
    DOCUMENT = 2
    BACKGROUND = 3


class Role(StrEnum):
    """Who says a chat message."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message; ``images`` (base64, for a vision model) go as Ollama's
    ``messages[].images``."""

    role: Role
    content: str
    images: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One non-streaming chat call. ``schema`` is sent as Ollama's ``format``; ``options``
    as its ``options`` (``temperature`` 0 keeps extraction repeatable)."""

    model: str
    messages: tuple[ChatMessage, ...]
    priority: ModelPriority
    schema: Mapping[str, Any] | None = None
    options: Mapping[str, Any] = field(default_factory=lambda: {"temperature": 0})


@dataclass(frozen=True, slots=True)
class ChatReply:
    """The assistant's whole answer and what the backend reported about it."""

    content: str
    model: str
    duration_ms: float
    prompt_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class Attempt:
    """One call of a structured request: how long it took and, when its answer was
    refused, why (the validation errors fed back to the model)."""

    number: int
    duration_ms: float
    error: str | None = None


class ModelClient(Protocol):
    """Sends chat calls to a model backend (the embedded router, or an Ollama URL)."""

    async def chat(self, request: ChatRequest) -> ChatReply:
        """The answer; raises ``ModelCallError`` when the backend could not give one."""
        ...

    async def installed(self) -> frozenset[str]:
        """The models the backend holds (Ollama's ``/api/tags``, every backend's through the
        router); raises ``ModelCallError`` when it cannot be asked."""
        ...

    async def aclose(self) -> None:
        """Release what the adapter opened (an injected client stays open)."""
        ...


class ModelCallError(KenningError):
    """The model backend failed; retry later only when ``transient`` is true.

    Example: ``ModelCallError("ollama busy (503)", transient=True)``.
    """

    code = ErrorCode.MODEL_UNAVAILABLE

    def __init__(self, message: str, *, transient: bool, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.transient = transient
        self.retry_after = retry_after


class ModelOutputError(KenningError):
    """The model's answer did not match the schema after every attempt; ``attempts`` holds
    every attempt with its validation error, in order."""

    code = ErrorCode.MODEL_OUTPUT_INVALID

    def __init__(self, message: str, *, attempts: tuple[Attempt, ...], model: str) -> None:
        super().__init__(message)
        self.attempts = attempts
        self.model = model

"""A model call whose answer must be an instance of a pydantic model.

The JSON schema of the output model goes to the backend as Ollama's ``format`` (structured
outputs), and the answer is validated with pydantic all the same: a backend may ignore the
format, a model may still break a rule the schema cannot say (a validator's). An invalid
answer is retried up to ``max_retries`` times with the validation error fed back to the
model; an answer that stays invalid raises ``ModelOutputError`` with every attempt's error.
A ``ModelCallError`` (busy, unreachable) is not retried here: it is operational, and the
caller backs off (the queue) or reports it (an interactive call).

Example::

    result = await structured_call(client, StructuredPrompt(
        model="qwen2.5:7b", system=SYSTEM, prompt=text, output=Extraction,
        priority=ModelPriority.BACKGROUND))
    result.value  # an Extraction
"""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Generic, TypeVar

import pydantic

from kenning.domain.models.ports import (
    Attempt,
    ChatMessage,
    ChatRequest,
    ModelClient,
    ModelOutputError,
    ModelPriority,
    Role,
)

M = TypeVar("M", bound=pydantic.BaseModel)

DEFAULT_MAX_RETRIES: Final = 3
MAX_FEEDBACK_CHARS: Final = 2_000


@dataclass(frozen=True, slots=True)
class StructuredPrompt(Generic[M]):
    """What to ask, of which model, at which priority, and the shape the answer must have.

    ``context`` reaches the output model's validators (``info.context``), for rules that
    depend on the request (for instance, which piece refs exist)."""

    model: str
    system: str
    prompt: str
    output: type[M]
    priority: ModelPriority
    max_retries: int = DEFAULT_MAX_RETRIES
    context: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Structured(Generic[M]):
    """A validated answer, the raw text it came from and every attempt it took."""

    value: M
    raw: str
    model: str
    attempts: tuple[Attempt, ...]

    @property
    def duration_ms(self) -> float:
        return sum(a.duration_ms for a in self.attempts)


@functools.cache
def output_schema(output: type[pydantic.BaseModel]) -> dict[str, Any]:
    """The JSON schema sent as ``format``; built once per output model (about 1 ms each
    time otherwise, which per-chunk extraction would pay for every chunk). Callers must not
    change the dict."""
    return output.model_json_schema()


def _feedback(error: pydantic.ValidationError) -> str:
    lines = [
        f"- {'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}"
        for e in error.errors(include_url=False)
    ]
    return "\n".join(lines)[:MAX_FEEDBACK_CHARS]


async def structured_call(client: ModelClient, prompt: StructuredPrompt[M]) -> Structured[M]:
    """Ask until the answer validates, at most ``1 + max_retries`` calls."""
    if prompt.max_retries < 0:
        raise ValueError("max_retries must be at least 0")
    schema = output_schema(prompt.output)
    messages = [ChatMessage(Role.SYSTEM, prompt.system), ChatMessage(Role.USER, prompt.prompt)]
    attempts: list[Attempt] = []
    for number in range(1, prompt.max_retries + 2):
        started = time.perf_counter()
        reply = await client.chat(
            ChatRequest(prompt.model, tuple(messages), prompt.priority, schema=schema)
        )
        elapsed = (time.perf_counter() - started) * 1000
        try:
            value = prompt.output.model_validate_json(reply.content, context=dict(prompt.context))
        except pydantic.ValidationError as error:
            problems = _feedback(error)
            attempts.append(Attempt(number, elapsed, problems))
            messages += [
                ChatMessage(Role.ASSISTANT, reply.content),
                ChatMessage(
                    Role.USER,
                    "Your answer did not match the required JSON schema:\n"
                    f"{problems}\nAnswer again with corrected JSON only.",
                ),
            ]
            continue
        attempts.append(Attempt(number, elapsed))
        return Structured(value, reply.content, reply.model, tuple(attempts))
    raise ModelOutputError(
        f"{prompt.model} gave no valid answer in {len(attempts)} attempts; last error:"
        f" {attempts[-1].error}",
        attempts=tuple(attempts),
        model=prompt.model,
    )

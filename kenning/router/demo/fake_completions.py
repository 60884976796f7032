"""/api/generate and /api/chat of `FakeOllama`: fake tokens at the fake's pace per token,
streamed as NDJSON with a final ``done`` object or answered whole (``stream: false``); an
empty prompt loads the model, or unloads it with ``keep_alive: 0``. A reply the test scripted
(`fake_replies.py`) replaces the fake tokens. Read `complete` first."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from kenning.router.demo.fake_models import ModelSpec, fake_tokens, parse_keep_alive
from kenning.router.demo.fake_replies import Reply, pieces
from kenning.router.demo.fake_schema import constrained_answer

if TYPE_CHECKING:
    from kenning.router.demo.fake_ollama import FakeOllama, RequestRecord

NDJSON = "application/x-ndjson"


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())


def _line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj).encode() + b"\n"


async def complete(
    fake: FakeOllama,
    request: Request,
    body: dict[str, Any],
    spec: ModelSpec,
    record: RequestRecord,
    prompt: str,
    *,
    chat: bool = False,
) -> Response:
    """Answer a generate (or, with ``chat``, a chat) request for ``prompt``."""
    keep = parse_keep_alive(body.get("keep_alive"))
    if not prompt:
        result = await _load_or_unload(fake, spec, record, keep)
        if chat:
            result["message"] = {"role": "assistant", "content": ""}
        else:
            result["response"] = ""
        return JSONResponse(result)
    if spec.embedding:
        record.outcome = "error"
        kind = "chat" if chat else "generate"
        return JSONResponse({"error": f'"{spec.name}" does not support {kind}'}, 400)
    reply = fake.next_reply(body)
    constrained = constrained_answer(body.get("format")) if reply is None else None
    if constrained is not None:
        reply = Reply(constrained)
    if reply is None:
        count = int((body.get("options") or {}).get("num_predict") or fake.tokens)
        tokens, delay = fake_tokens(prompt, count), 0.0
    else:
        tokens, delay = pieces(reply.content), reply.delay
    completion = _Completion(fake, spec, record, keep, prompt, tokens, chat, delay)
    if body.get("stream", True) is False:
        return await fake.until_disconnect(request, record, completion.whole())
    return StreamingResponse(completion.stream(), media_type=NDJSON)


async def _load_or_unload(
    fake: FakeOllama, spec: ModelSpec, record: RequestRecord, keep: float | None
) -> dict[str, Any]:
    base = {"model": spec.name, "created_at": _now(), "done": True}
    if keep == 0:
        fake.residency.expire(spec.name)
        record.outcome = "ok"
        return {**base, "done_reason": "unload"}
    async with fake.running(spec, record, keep):
        pass
    return {**base, "done_reason": "load"}


@dataclass
class _Completion:
    """One generate or chat request with a prompt, answered token by token."""

    fake: FakeOllama
    spec: ModelSpec
    record: RequestRecord
    keep: float | None
    prompt: str
    tokens: list[str]
    chat: bool
    delay: float = 0.0  # before the first token, as a model reading a long prompt

    def piece(self, token: str) -> dict[str, Any]:
        if self.chat:
            return {"message": {"role": "assistant", "content": token}}
        return {"response": token}

    def final(self, started: float, text: str) -> dict[str, Any]:
        elapsed = int((time.monotonic() - started) * 1e9)
        return {
            "model": self.spec.name,
            "created_at": _now(),
            **self.piece(text),
            "done": True,
            "done_reason": "stop",
            **({} if self.chat else {"context": [1, 2, 3]}),
            "total_duration": elapsed,
            "load_duration": int(self.fake.load_time * 1e9),
            "prompt_eval_count": len(self.prompt.split()),
            "prompt_eval_duration": 1000,
            "eval_count": len(self.tokens),
            "eval_duration": elapsed,
        }

    async def whole(self) -> Response:
        fake, record = self.fake, self.record
        async with fake.running(self.spec, record, self.keep):
            await asyncio.sleep(self.delay)
            for _ in self.tokens:
                await asyncio.sleep(fake.token_latency)
            if fake.error_after_tokens is not None:
                record.outcome = "error"
                return JSONResponse({"error": "fake failure"}, status_code=500)
            return JSONResponse(self.final(record.started, "".join(self.tokens)))

    async def stream(self) -> AsyncIterator[bytes]:
        fake, record = self.fake, self.record
        async with fake.running(self.spec, record, self.keep):
            await asyncio.sleep(self.delay)
            for index, token in enumerate(self.tokens):
                if fake.error_after_tokens is not None and index >= fake.error_after_tokens:
                    record.outcome = "error"
                    yield _line({"error": "fake failure after the stream started"})
                    return
                await asyncio.sleep(fake.token_latency)
                if record.first_token is None:
                    record.first_token = time.monotonic()
                yield _line({"model": self.spec.name, "created_at": _now(), **self.piece(token)})
            yield _line(self.final(record.started, ""))

"""The mounted router reads request bodies within a limit: an announce or release body over
8 KiB, a model call's over ``KENNING_MAX_REQUEST_BYTES``, is answered 413 naming the limit
as soon as it passes it (the rest never pulled from the client), and JSON nested deeper than
Python parses is a 400, not a 500."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from kenning.domain.access.principal import Role
from kenning.router.http.bodies import CONTROL_BODY_BYTES
from kenning.settings import Settings
from tests.fakes.ollama import FakeFactory
from tests.support.kenning_stack import Kenning
from tests.support.router_sessions import GENERATE, Keys, single_gpu_kenning

pytestmark = pytest.mark.integration

MIB = 1024 * 1024
CHUNK = 64 * 1024


class Streamed:
    """A body of ``total`` bytes sent ``CHUNK`` at a time (no Content-Length), counting how
    much of it the server pulled."""

    def __init__(self, total: int, head: bytes = b'{"session": "') -> None:
        self.total = total
        self.head = head
        self.pulled = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        filler = b"x" * CHUNK
        chunk = self.head + filler[len(self.head) :]
        while self.pulled < self.total:
            self.pulled += len(chunk)
            yield chunk
            chunk = filler


@pytest.fixture
async def small_limit(
    fake_ollama_factory: FakeFactory, routed_settings: Settings, routed_pool: asyncpg.Pool
) -> AsyncIterator[Kenning]:
    """Kenning whose ``KENNING_MAX_REQUEST_BYTES`` is 1 MiB."""
    base = routed_settings.model_copy(update={"max_request_bytes": MIB})
    async with single_gpu_kenning(fake_ollama_factory, base, routed_pool) as running:
        yield running


def assert_too_large(answer: Any, limit: int) -> None:
    assert answer.status_code == 413, answer.text
    assert answer.json()["limit"] == limit and f"over {limit} bytes" in answer.json()["error"]


async def test_announce_and_release_bodies_over_the_limit_are_refused_unread(
    kenning: Kenning, keys: Keys
) -> None:
    for what in ("announce", "release"):
        body = Streamed(64 * MIB)
        answer = await kenning.http.post(f"/router/{what}", content=body, headers=keys.acme)
        assert_too_large(answer, CONTROL_BODY_BYTES)
        assert answer.json()["code"] == "TOO_LARGE"
        assert body.pulled <= CONTROL_BODY_BYTES + CHUNK
        # A Content-Length over the limit is refused before any of the body is read.
        declared = Streamed(64 * MIB)
        headers = {**keys.acme, "Content-Length": str(1024 * MIB)}
        answer = await kenning.http.post(f"/router/{what}", content=declared, headers=headers)
        assert_too_large(answer, CONTROL_BODY_BYTES)
        assert declared.pulled == 0
    # A body of exactly the limit is read.
    exact = b'{"session": "chat"}'.ljust(CONTROL_BODY_BYTES)
    answer = await kenning.http.post("/router/announce", content=exact, headers=keys.acme)
    assert answer.status_code == 200 and answer.json()["session"] == "chat", answer.text


async def test_a_model_call_over_the_servers_limit_is_refused_unread(small_limit: Kenning) -> None:
    ui = small_limit.auth(Role.UI)
    for path in ("/ollama/api/generate", "/ollama/api/embed", "/ollama/api/show"):
        body = Streamed(300 * MIB, head=b'{"prompt": "')
        answer = await small_limit.http.post(path, content=body, headers=ui)
        assert_too_large(answer, MIB)
        assert body.pulled <= MIB + CHUNK, (path, body.pulled)
    # Below the limit, a call carrying an image goes through.
    image = base64.b64encode(b"\x89PNG" + b"\x00" * (MIB // 2)).decode()
    answer = await small_limit.http.post(
        "/ollama/api/generate", json={**GENERATE, "images": [image]}, headers=ui
    )
    assert answer.status_code == 200, answer.text


async def test_json_nested_too_deep_is_a_400(kenning: Kenning, keys: Keys) -> None:
    deep = b"[" * 4000 + b"]" * 4000
    for what in ("announce", "release"):
        answer = await kenning.http.post(f"/router/{what}", content=deep, headers=keys.acme)
        assert answer.status_code == 400, answer.text
        assert answer.json()["code"] == "INVALID" and "nests deeper" in answer.json()["error"]
    nested = b'{"model": "m", "options": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    answer = await kenning.http.post("/ollama/api/generate", content=nested, headers=keys.acme)
    assert answer.status_code == 400 and "nests deeper" in answer.json()["error"], answer.text

"""A real server reads a router request's body only up to its limit: a 1,000 MiB release body
and a 300 MiB model call are answered 413 long before the client has sent them, and the
server's peak memory stays near what it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.router.http.bodies import CONTROL_BODY_BYTES
from kenning.settings import Settings
from tests.fakes.ollama import FakeFactory
from tests.support.kenning_stack import fake_backend, serve_router_env, state_prefix
from tests.support.peak_memory import PeakMemory
from tests.support.server_process import create_key, start_server, stop_server
from tests.support.streamed_upload import MIB, stream_until_answered

pytestmark = pytest.mark.e2e

LIMIT = 4 * MIB  # the server's KENNING_MAX_REQUEST_BYTES here
# What the server's peak may rise by while it refuses: the 4 MiB it may hold of a model
# call, and room for its own churn. Reading either body whole would take hundreds of MiB.
RISE = 16 * MIB


async def test_huge_router_bodies_are_refused_before_they_are_sent(
    fake_ollama_factory: FakeFactory, routed_settings: Settings, tmp_path: Path
) -> None:
    dims = routed_settings.embedding_dim
    gpu = fake_backend(fake_ollama_factory, "gpu0", dims)
    cpu = fake_backend(fake_ollama_factory, "cpu", dims)
    async with state_prefix(routed_settings.redis_url) as prefix:
        env = serve_router_env(gpu, cpu, prefix)
        process, server = start_server(
            routed_settings, tmp_path / "serve.log", KENNING_MAX_REQUEST_BYTES=str(LIMIT), **env
        )
        try:
            agent = await create_key(routed_settings, Scope("acme"), Role.AGENT)
            ui = await create_key(routed_settings, Scope("acme"), Role.UI)
            cases = [
                ("/router/release", agent, 1000 * MIB, b'{"session": "', CONTROL_BODY_BYTES),
                ("/ollama/api/generate", ui, 300 * MIB, b'{"prompt": "', LIMIT),
            ]
            peak = PeakMemory(process.pid)
            for path, key, total, head, limit in cases:
                headers = {"Authorization": f"Bearer {key}"}
                # Unmeasured: the first refusal pays what any first request of its kind pays.
                await stream_until_answered(server.url, path, headers, 2 * limit, head=head)
                peak.reset()
                answer = await stream_until_answered(server.url, path, headers, total, head=head)
                rise = peak.rise()
                assert answer.status == 413, answer.body
                assert json.loads(answer.body)["limit"] == limit
                assert answer.sent < 64 * MIB, (path, answer.sent)
                assert rise < RISE, (path, rise)
        finally:
            stop_server(process)

"""Kenning with the router over one fake GPU and a CPU, agent keys of two clients, and what a
test of announced sessions and priority-0 holds reads back over HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import asyncpg
import httpx

from kenning.domain.access.principal import Role
from kenning.domain.access.scope import Scope
from kenning.router import Priority, PriorityRuleSpec
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from tests.fakes.ollama import FakeFactory
from tests.support.kenning_stack import (
    EMBED_MODEL,
    Kenning,
    fake_backend,
    kenning_settings,
    routed,
    running_kenning,
    state_prefix,
)
from tests.support.router_harness import ORCHESTRATOR_MODEL

P0 = {"X-Ollama-Priority": "0"}
GENERATE = {"model": ORCHESTRATOR_MODEL, "prompt": "hi", "stream": False}
EMBED = {"model": EMBED_MODEL, "input": "note"}


@dataclass(frozen=True)
class Keys:
    """Bearer headers: agents of two clients (acme has two keys), acme's admin, a global admin."""

    acme: dict[str, str]
    acme_other: dict[str, str]
    globex: dict[str, str]
    acme_admin: dict[str, str]
    admin: dict[str, str]


@asynccontextmanager
async def single_gpu_kenning(
    factory: FakeFactory, base: Settings, pool: asyncpg.Pool, **router: Any
) -> AsyncIterator[Kenning]:
    """Kenning with the router over a fake single GPU and a CPU, on a state prefix of its own;
    ``router`` overrides router settings."""
    dims = base.embedding_dim
    gpu = fake_backend(factory, "gpu0", dims, vram_mb=1200, load_time=0.05)
    cpu = fake_backend(factory, "cpu", dims)
    async with state_prefix(base.redis_url) as prefix:
        rules = [PriorityRuleSpec(pattern=ORCHESTRATOR_MODEL, priority=Priority.CRITICAL)]
        config = routed(gpu, cpu, prefix, priority_rules=rules, **router)
        async with running_kenning(kenning_settings(base, config), pool) as running:
            await running.settled()
            yield running


async def client_keys(kenning: Kenning, pool: asyncpg.Pool) -> Keys:
    async def key(scope: Scope, role: Role) -> dict[str, str]:
        made, _ = await PgApiKeys(pool).create(scope, role, "router-sessions")
        return {"Authorization": f"Bearer {made}"}

    return Keys(
        acme=await key(Scope("acme"), Role.AGENT),
        acme_other=await key(Scope("acme", "mobile"), Role.AGENT),
        globex=await key(Scope("globex"), Role.AGENT),
        acme_admin=await key(Scope("acme"), Role.ADMIN),
        admin=kenning.auth(Role.ADMIN),
    )


async def control(
    kenning: Kenning, what: str, headers: dict[str, str], body: Any = None
) -> httpx.Response:
    return await kenning.http.post(f"/router/{what}", json=body, headers=headers)


async def status(kenning: Kenning) -> dict[str, Any]:
    """``/router/status`` as a global admin sees it (every session, by its shown name)."""
    answer = await kenning.http.get("/router/status", headers=kenning.auth(Role.ADMIN))
    body: dict[str, Any] = answer.json()
    return body


async def sessions(kenning: Kenning) -> set[tuple[str, str]]:
    """Every live session as (client, name)."""
    return {(held["client"], held["session"]) for held in (await status(kenning))["sessions"]}


async def hidden_leases(kenning: Kenning, headers: dict[str, str]) -> int:
    """How many sessions a caller that sees no names counts in ``/router/status``."""
    leases = (await kenning.http.get("/router/status", headers=headers)).json()["leases"]
    return len([name for name in leases if name.startswith("hidden-")])


async def holds(kenning: Kenning) -> str:
    """The set gpu0 holds once no swap runs on it (the reconcile loop may have begun one
    just before a release's own pass)."""
    for _ in range(200):
        gpu = (await status(kenning))["backends"][0]
        if not gpu["swapping"]:
            held: str = gpu["holds"]
            return held
        await asyncio.sleep(0.025)
    raise AssertionError("gpu0 kept swapping")


async def swaps(kenning: Kenning) -> dict[str, float]:
    """Model-set swaps of gpu0 so far, by target set."""
    metrics = await kenning.http.get("/router/metrics", headers=kenning.auth(Role.ADMIN))
    head = 'kenning_router_set_swaps_total{backend="gpu0",target="'
    counted = {}
    for line in metrics.text.splitlines():
        if line.startswith(head):
            counted[line[len(head) :].split('"')[0]] = float(line.split()[-1])
    return counted

"""Latency (sequential, paths interleaved) and throughput (fixed concurrency) of read paths,
with the CPU each process spent, from Linux ``/proc``.

On a small machine the client, the server and PostgreSQL share the cores, so a rate alone
does not say where the time went; CPU milliseconds per query of each part do.
"""

from __future__ import annotations

import asyncio
import math
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

import asyncpg

Call = Callable[[str], Awaitable[object]]
_TICKS = os.sysconf("SC_CLK_TCK")


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation; ``nan`` when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _process_cpu(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()  # the name may hold spaces
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICKS


def _machine_busy() -> float:
    with open("/proc/stat", encoding="ascii") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    return (sum(values[:8]) - values[3] - values[4]) / _TICKS


async def postgres_pids(pool: asyncpg.Pool) -> list[int]:
    """Backends of this database and the server's background processes."""
    rows = await pool.fetch(
        "SELECT pid FROM pg_stat_activity WHERE datname = current_database() OR datname IS NULL"
    )
    return [int(r["pid"]) for r in rows]


@dataclass(frozen=True, slots=True)
class Latency:
    """Milliseconds per query."""

    count: int
    p50_ms: float
    p95_ms: float
    mean_ms: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latency:
        ms = [s * 1000 for s in seconds]
        mean = sum(ms) / len(ms) if ms else math.nan
        return cls(len(ms), percentile(ms, 50), percentile(ms, 95), mean)


@dataclass(frozen=True, slots=True)
class Throughput:
    """Queries per second at a fixed concurrency, and CPU ms per query by process."""

    count: int
    concurrency: int
    wall_s: float
    qps: float
    latency: Latency
    client_cpu_ms: float
    server_cpu_ms: float
    postgres_cpu_ms: float
    machine_cpu_ms: float


@dataclass(frozen=True, slots=True)
class Cpu:
    """CPU milliseconds per query: this process, the server, PostgreSQL."""

    client_ms: float
    server_ms: float
    postgres_ms: float


@dataclass(frozen=True, slots=True)
class Interleaved:
    """Latency and CPU per path, and each path's answers, in item order."""

    latency: dict[str, Latency]
    cpu: dict[str, Cpu]
    answers: dict[str, list[object]]


def _cpu_now(postgres: Sequence[int], server_pid: int | None) -> tuple[float, float, float]:
    server = _process_cpu(server_pid) if server_pid else 0.0
    return time.process_time(), server, sum(_process_cpu(pid) for pid in postgres)


async def interleaved(
    calls: Mapping[str, Call],
    items: Sequence[str],
    pool: asyncpg.Pool,
    server_pid: int | None = None,
) -> Interleaved:
    """Each item through every path, one at a time, rotating which path goes first. CPU is
    read from ``/proc`` around each call, outside its timed span."""
    names = list(calls)
    postgres = await postgres_pids(pool)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    answers: dict[str, list[object]] = {name: [] for name in names}
    used = {name: [0.0, 0.0, 0.0] for name in names}
    for index, item in enumerate(items):
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            before = _cpu_now(postgres, server_pid)
            started = time.perf_counter()
            answers[name].append(await calls[name](item))
            seconds[name].append(time.perf_counter() - started)
            after = _cpu_now(postgres, server_pid)
            for part in range(3):
                used[name][part] += after[part] - before[part]
    per_query = 1000 / max(len(items), 1)
    return Interleaved(
        latency={name: Latency.of(seconds[name]) for name in names},
        cpu={name: Cpu(*(value * per_query for value in used[name])) for name in names},
        answers=answers,
    )


@dataclass(slots=True)
class _Tally:
    seconds: list[float] = field(default_factory=list)
    wall: float = 0.0
    own: float = 0.0
    server: float = 0.0
    postgres: float = 0.0
    machine: float = 0.0

    def result(self, concurrency: int) -> Throughput:
        count = len(self.seconds)
        per_query = 1000 / count
        return Throughput(
            count=count,
            concurrency=concurrency,
            wall_s=self.wall,
            qps=count / self.wall,
            latency=Latency.of(self.seconds),
            client_cpu_ms=self.own * per_query,
            server_cpu_ms=self.server * per_query,
            postgres_cpu_ms=self.postgres * per_query,
            machine_cpu_ms=self.machine * per_query,
        )


async def _saturate(
    call: Call,
    items: Sequence[str],
    concurrency: int,
    pool: asyncpg.Pool,
    server_pid: int | None,
    tally: _Tally,
) -> None:
    pending = iter(items)  # shared: each item is taken by one worker, once

    async def worker() -> None:
        for item in pending:
            started = time.perf_counter()
            await call(item)
            tally.seconds.append(time.perf_counter() - started)

    watched = [*await postgres_pids(pool), *([server_pid] if server_pid else [])]
    before = {pid: _process_cpu(pid) for pid in watched}
    own, machine, wall = time.process_time(), _machine_busy(), time.perf_counter()
    async with asyncio.TaskGroup() as group:
        for _ in range(concurrency):
            group.create_task(worker())
    tally.wall += time.perf_counter() - wall
    tally.own += time.process_time() - own
    tally.machine += _machine_busy() - machine
    after = {pid: _process_cpu(pid) for pid in {*watched, *await postgres_pids(pool)}}
    for pid, seconds in after.items():
        used = seconds - before.get(pid, 0.0)  # a backend that started meanwhile: all of it
        if pid == server_pid:
            tally.server += used
        else:
            tally.postgres += used


async def saturate(
    call: Call,
    items: Sequence[str],
    concurrency: int,
    pool: asyncpg.Pool,
    server_pid: int | None = None,
) -> Throughput:
    """Every item once, ``concurrency`` in flight; CPU of this process, the server and
    PostgreSQL over the phase."""
    tally = _Tally()
    await _saturate(call, items, concurrency, pool, server_pid, tally)
    return tally.result(concurrency)


async def loaded(
    calls: Mapping[str, Call],
    items: Sequence[str],
    concurrency: int,
    pool: asyncpg.Pool,
    server_pids: Mapping[str, int | None],
    rounds: int = 3,
) -> dict[str, Throughput]:
    """``saturate`` for every path over the same items, split in ``rounds`` with the paths'
    order rotating, so a neighbour's burst on a shared machine hits every path alike."""
    names = list(calls)
    tallies = {name: _Tally() for name in names}
    size = -(-len(items) // rounds)
    for index, start in enumerate(range(0, len(items), size)):
        part = items[start : start + size]
        shift = index % len(names)
        for name in names[shift:] + names[:shift]:
            await _saturate(
                calls[name], part, concurrency, pool, server_pids.get(name), tallies[name]
            )
    return {name: tally.result(concurrency) for name, tally in tallies.items()}

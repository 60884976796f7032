"""Client processes of the fan-out benchmark: each holds its share of the ``queueStatus``
websockets on an event loop of its own, so the client's receiving is spread over the cores
the way many real clients would be, and is not one loop's queue.

The parent talks to each process over a pipe: ``ready`` (with how long connecting took)
once every socket has its first snapshot; the parent answers with the number of transitions
to expect; the process then waits (bounded) until each socket has seen them and replies
``done`` with each arrival's delay (arrival minus the change's commit time; same machine, so
``time.time()`` of every process is one clock), message counts and its CPU seconds.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import time
from dataclasses import dataclass, field
from datetime import datetime
from multiprocessing.connection import Connection
from typing import Any

import websockets

STATUS_FEED = "subscription { queueStatus(first: 0) { changes { jobId status version at } } }"
OPENING = 25  # handshakes in flight per process, so the server accepts in waves
OPEN_TRIES = 3
DELIVERED_WITHIN = 60.0


@dataclass
class Subscriber:
    delays_ms: list[float] = field(default_factory=list)
    messages: int = 0
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    failure: BaseException | None = None


async def _subscribe(
    url: str, headers: dict[str, str], sub: Subscriber, opening: asyncio.Semaphore
) -> None:
    """One subscriber; a handshake that fails (a loaded server) is tried again, bounded."""
    for attempt in range(OPEN_TRIES):
        try:
            async with opening:
                ws = await websockets.connect(
                    url,
                    subprotocols=["graphql-transport-ws"],  # type: ignore[list-item]
                    max_size=2**24,
                    open_timeout=60,
                )
        except (OSError, TimeoutError, websockets.InvalidHandshake) as error:
            sub.failure = error
            if attempt + 1 == OPEN_TRIES:
                return
            await asyncio.sleep(1.0)
            continue
        sub.failure = None
        async with ws:
            await _receive(ws, headers, sub)
        return


async def _receive(ws: Any, headers: dict[str, str], sub: Subscriber) -> None:
    """Subscribe on ``ws`` and record every change it delivers, until it closes."""
    await ws.send(json.dumps({"type": "connection_init", "payload": headers}))
    await ws.recv()
    await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": STATUS_FEED}}))
    async for raw in ws:
        arrived = time.time()
        message = json.loads(raw)
        kind = message["type"]
        if kind == "ping":
            await ws.send('{"type":"pong"}')
        elif kind == "next":
            sub.messages += 1
            for change in message["payload"]["data"]["queueStatus"]["changes"]:
                at = datetime.fromisoformat(change["at"]).timestamp()
                sub.delays_ms.append((arrived - at) * 1000)
            sub.ready.set()


async def _bounded(check: Any, within: float) -> bool:
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def _client(pipe: Connection, url: str, headers: dict[str, str], count: int) -> None:
    loop = asyncio.get_running_loop()
    subs = [Subscriber() for _ in range(count)]
    opened = time.perf_counter()
    opening = asyncio.Semaphore(OPENING)
    tasks = [asyncio.create_task(_subscribe(url, headers, sub, opening)) for sub in subs]
    connected = await _bounded(lambda: all(s.ready.is_set() for s in subs), 180)
    if not connected:
        failures = {repr(s.failure) for s in subs if s.failure is not None}
        print(f"subscribers without a snapshot: {failures}", flush=True)
    pipe.send(("ready", connected, time.perf_counter() - opened))
    cpu = time.process_time()
    transitions = await loop.run_in_executor(None, pipe.recv)
    await _bounded(lambda: all(len(s.delays_ms) >= transitions for s in subs), DELIVERED_WITHIN)
    cpu = time.process_time() - cpu
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    delays = [d for s in subs for d in s.delays_ms]
    pipe.send(("done", delays, sum(s.messages for s in subs), cpu))


def _client_process(pipe: Connection, url: str, headers: dict[str, str], count: int) -> None:
    asyncio.run(_client(pipe, url, headers, count))


class ClientProcesses:
    """``processes`` client processes holding ``subscribers`` sockets between them."""

    def __init__(self, url: str, headers: dict[str, str], subscribers: int, processes: int):
        context = multiprocessing.get_context("spawn")
        self.processes = min(processes, subscribers)
        share, extra = divmod(subscribers, self.processes)
        self._pipes: list[Connection] = []
        self._children = []
        for n in range(self.processes):
            ours, theirs = context.Pipe()
            count = share + (1 if n < extra else 0)
            child = context.Process(target=_client_process, args=(theirs, url, headers, count))
            child.start()
            self._pipes.append(ours)
            self._children.append(child)

    async def _each(self, expected: str) -> list[tuple[Any, ...]]:
        loop = asyncio.get_running_loop()
        answers = await asyncio.gather(
            *(loop.run_in_executor(None, pipe.recv) for pipe in self._pipes)
        )
        for answer in answers:
            if answer[0] != expected:
                raise RuntimeError(f"a client process answered {answer[0]}, not {expected}")
        return answers

    async def ready(self) -> float:
        """Seconds until every socket had its first snapshot (the slowest process)."""
        answers = await self._each("ready")
        if not all(connected for _, connected, _ in answers):
            raise TimeoutError("not every subscriber got its first snapshot within 180 s")
        return float(max(seconds for _, _, seconds in answers))

    async def results(self, transitions: int) -> tuple[list[float], int, float]:
        """Every arrival's delay in ms, the messages received and the clients' CPU seconds."""
        for pipe in self._pipes:
            pipe.send(transitions)
        answers = await self._each("done")
        delays = [d for _, part, _, _ in answers for d in part]
        return delays, sum(a[2] for a in answers), sum(a[3] for a in answers)

    def close(self) -> None:
        for child in self._children:
            child.join(10)
            if child.is_alive():
                child.kill()
                child.join()

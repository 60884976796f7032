"""Router benchmark: added latency per request, and P0 time to first byte under preemption.

Run from the repository root: ``.venv/bin/python -m bench.router``. The fake Ollama servers
and the router each run in their own process on loopback ports, so the client, the router
and the backends do not share an interpreter; every loop below is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import httpx

from bench._processes import free_port, running_process

ORCHESTRATOR = "llama3.2:1b"
BACKGROUND = "nomic-embed-text"
P0 = {"X-Ollama-Priority": "0"}
P3 = {"X-Ollama-Priority": "3"}


def _serve_fake(args: argparse.Namespace) -> None:
    from kenning.router.demo import FakeOllama

    fake = FakeOllama(
        args.name,
        vram_mb=1200,
        load_time=args.load_time,
        embed_latency=args.embed_latency,
        port=args.port,
    )
    fake.start()
    time.sleep(args.lifetime)
    fake.stop()


def _serve_router(args: argparse.Namespace) -> None:
    import uvicorn

    from kenning.router import RouterSettings, create_router_app

    settings = RouterSettings(
        gpu_backends=[{"name": "gpu0", "url": args.gpu, "queue_depth": 8}],
        cpu_backend=args.cpu,
        orchestrator_models=[ORCHESTRATOR],
        background_models=[BACKGROUND],
        health_interval_seconds=1.0,
    )
    uvicorn.run(create_router_app(settings), host="127.0.0.1", port=args.port, log_level="warning")


def _child(*argv: str, ready: str) -> AbstractAsyncContextManager[object]:
    """``bench.router`` in another role, yielded once GET ``ready`` answers 200."""
    return running_process(("-m", "bench.router", *argv), ready_url=ready)


@asynccontextmanager
async def _stack(load_time: float, embed_latency: float) -> AsyncIterator[tuple[str, str]]:
    """Fake GPU and CPU backends plus a router; yields (gpu url, router url)."""
    gpu_port, cpu_port, router_port = free_port(), free_port(), free_port()
    gpu, cpu = f"http://127.0.0.1:{gpu_port}", f"http://127.0.0.1:{cpu_port}"
    router = f"http://127.0.0.1:{router_port}"
    fake = ["--lifetime", "600", "--embed-latency"]
    gpu_argv = ["--name", "gpu0", "--port", str(gpu_port), "--load-time", str(load_time)]
    cpu_argv = ["--name", "cpu", "--port", str(cpu_port), "--load-time", "0"]
    router_argv = ["--port", str(router_port), "--gpu", gpu, "--cpu", cpu]
    async with (
        _child("_fake", *gpu_argv, *fake, str(embed_latency), ready=gpu + "/api/version"),
        _child("_fake", *cpu_argv, *fake, "0.01", ready=cpu + "/api/version"),
        _child("_router", *router_argv, ready=router + "/router/status"),
    ):
        yield gpu, router


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _timed(http: httpx.AsyncClient, url: str, body: dict[str, object]) -> float:
    started = time.perf_counter()
    response = await http.post(url, json=body, headers=P0)
    response.raise_for_status()
    return (time.perf_counter() - started) * 1000


async def overhead(requests: int = 400) -> None:
    print(f"Overhead: {requests} sequential P0 requests per path and endpoint (ms)")
    async with _stack(load_time=0.0, embed_latency=0.0) as (gpu, router):
        bodies: dict[str, dict[str, object]] = {
            "/api/embed": {"model": ORCHESTRATOR, "input": "a short paragraph"},
            "/api/generate": {"model": ORCHESTRATOR, "prompt": "hi", "stream": False},
        }
        async with httpx.AsyncClient(timeout=30) as http:
            floor: list[float] = []
            for _ in range(requests):
                started = time.perf_counter()
                (await http.get(gpu + "/api/version")).raise_for_status()
                floor.append((time.perf_counter() - started) * 1000)
            print(
                f"  floor: one loopback HTTP round trip (GET /api/version, direct) p50 "
                f"{_percentile(floor, 0.5):.2f} p95 {_percentile(floor, 0.95):.2f}"
            )
            for path, body in bodies.items():
                direct: list[float] = []
                routed: list[float] = []
                for _ in range(20):  # warm connections and the model
                    await _timed(http, gpu + path, body)
                    await _timed(http, router + path, body)
                for _ in range(requests):  # interleaved, so drift hits both alike
                    direct.append(await _timed(http, gpu + path, body))
                    routed.append(await _timed(http, router + path, body))
                d50, d95 = _percentile(direct, 0.5), _percentile(direct, 0.95)
                r50, r95 = _percentile(routed, 0.5), _percentile(routed, 0.95)
                added = [r - d for r, d in zip(routed, direct, strict=True)]
                print(
                    f"  {path:14} direct p50 {d50:6.2f} p95 {d95:6.2f} | router p50 {r50:6.2f} "
                    f"p95 {r95:6.2f} | added p50 {r50 - d50:5.2f} p95 {r95 - d95:5.2f} "
                    f"(paired median {statistics.median(added):5.2f})"
                )


async def _first_byte(http: httpx.AsyncClient, router: str) -> float:
    body = {"model": ORCHESTRATOR, "prompt": "urgent"}
    started = time.perf_counter()
    async with http.stream("POST", router + "/api/generate", json=body, headers=P0) as response:
        async for _ in response.aiter_raw():
            return time.perf_counter() - started
    raise RuntimeError("empty stream")


async def _until_background(http: httpx.AsyncClient, router: str) -> None:
    for _ in range(600):
        status = (await http.get(router + "/router/status")).json()
        gpu = status["backends"][0]
        if gpu["holds"] == "background" and not gpu["swapping"]:
            return
        await asyncio.sleep(0.05)
    raise RuntimeError("GPU never returned to the background set")


async def preemption(load_time: float, rounds: int, saturation: int = 8) -> None:
    async with (
        _stack(load_time=load_time, embed_latency=1.0) as (_, router),
        httpx.AsyncClient(timeout=60) as http,
    ):
        figures: list[float] = []
        for _ in range(rounds):
            await _until_background(http, router)
            texts = [f"doc {i} {time.monotonic()}" for i in range(saturation)]
            background = [
                asyncio.create_task(
                    http.post(
                        router + "/api/embed",
                        json={"model": BACKGROUND, "input": t},
                        headers=P3,
                    )
                )
                for t in texts
            ]
            await asyncio.sleep(0.3)  # all of them running on the GPU
            figures.append(await _first_byte(http, router))
            answers = await asyncio.gather(*background)
            assert all(a.status_code == 200 for a in answers)
            assert all(a.headers["x-kenning-backend"] == "cpu" for a in answers)
            await http.post(router + "/router/release", json={})
        print(
            f"Preemption, load time {load_time:.0f} s, GPU saturated with {saturation} P3 "
            f"embeddings: P0 time to first byte "
            + ", ".join(f"{f * 1000:.0f} ms" for f in figures)
            + f" (median {statistics.median(figures) * 1000:.0f} ms); all P3 re-run on CPU"
        )


async def main() -> None:
    await overhead()
    await preemption(load_time=0.0, rounds=5)
    await preemption(load_time=2.0, rounds=2)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="role")
    fake_cmd = sub.add_parser("_fake")
    fake_cmd.add_argument("--name", required=True)
    fake_cmd.add_argument("--port", type=int, required=True)
    fake_cmd.add_argument("--load-time", type=float, default=0.0)
    fake_cmd.add_argument("--embed-latency", type=float, default=0.0)
    fake_cmd.add_argument("--lifetime", type=float, default=600.0)
    router_cmd = sub.add_parser("_router")
    router_cmd.add_argument("--port", type=int, required=True)
    router_cmd.add_argument("--gpu", required=True)
    router_cmd.add_argument("--cpu", required=True)
    parsed = parser.parse_args()
    if parsed.role == "_fake":
        _serve_fake(parsed)
    elif parsed.role == "_router":
        _serve_router(parsed)
    else:
        asyncio.run(main())

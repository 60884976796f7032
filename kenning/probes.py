"""The probes: liveness (/healthz), readiness (/readyz) and the Prometheus scrape (/metrics).

Each answers from the runtime holder ``create_app`` fills in its lifespan, so a probe during
startup says so instead of failing.
"""

from __future__ import annotations

import contextlib

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from kenning.domain.health import overall
from kenning.http_metrics import HttpMetrics
from kenning.metrics import ServiceMetrics
from kenning.router import router_of
from kenning.runtime import Runtime

_READY_STATUS = {"ok": "ready", "degraded": "degraded", "down": "unready"}


def probe_routes(
    holder: dict[str, Runtime],
    metrics: HttpMetrics,
    service: ServiceMetrics,
    router_app: Starlette | None,
) -> list[Route]:
    """The /healthz, /readyz and /metrics routes, in that order."""

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "alive"})

    async def readyz(_: Request) -> Response:
        runtime = holder.get("runtime")
        if runtime is None:
            return JSONResponse({"status": "starting"}, status_code=503)
        parts = await runtime.parts()
        state = overall(parts)
        body = {
            "status": _READY_STATUS[state],
            "parts": {part.name: part.detail for part in parts},
            "models": {m.role: m.detail for m in await runtime.model_watch.health()},
        }
        return JSONResponse(body, status_code=503 if state == "down" else 200)

    async def prometheus(_: Request) -> Response:
        runtime = holder.get("runtime")
        if runtime is not None:
            with contextlib.suppress(Exception):  # a scrape still answers with PG down
                await service.refresh_queue(runtime.queue.live_counts)
        payload, content_type = metrics.render()
        # Two registries, disjoint names: one exposition. Aggregated over processes, the
        # router's series are in the shared files already.
        if router_app is not None and not metrics.aggregated:
            payload += router_of(router_app).metrics.exposition()
        return PlainTextResponse(payload, media_type=content_type)

    return [
        Route("/healthz", healthz),
        Route("/readyz", readyz),
        Route("/metrics", prometheus),
    ]

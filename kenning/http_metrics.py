"""Prometheus metrics of HTTP traffic, in a registry owned by one app."""

from __future__ import annotations

import time
import uuid
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kenning.logs import request_id


class HttpMetrics:
    """Request counts and latencies by route and status; a request id per request."""

    def __init__(self, known_paths: tuple[str, ...] = ()) -> None:
        # Unknown paths share one label so scanners cannot blow up the series count.
        self.known_paths = frozenset(known_paths)
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "kenning_http_requests_total",
            "HTTP requests by path, method and status.",
            ["path", "method", "status"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "kenning_http_request_seconds",
            "HTTP request latency by path.",
            ["path"],
            registry=self.registry,
        )
        metrics = self

        class _Middleware:
            def __init__(self, app: ASGIApp) -> None:
                self.app = app

            async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
                await metrics.observe(self.app, scope, receive, send)

        self.middleware_class: Any = _Middleware

    def render(self) -> tuple[bytes, str]:
        """The exposition text and its content type."""
        return generate_latest(self.registry), CONTENT_TYPE_LATEST

    async def observe(self, app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
        """Run ``app`` for one request, counting and timing it."""
        if scope["type"] == "lifespan":
            await app(scope, receive, send)
            return
        if scope["type"] != "http":
            token = request_id.set(uuid.uuid4().hex)
            try:
                await app(scope, receive, send)
            finally:
                request_id.reset(token)
            return
        path = scope.get("path", "")
        path = path if path in self.known_paths else "other"
        status = {"code": 500}
        rid = uuid.uuid4().hex
        token = request_id.set(rid)

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                message.setdefault("headers", []).append((b"x-request-id", rid.encode()))
            await send(message)

        started = time.perf_counter()
        try:
            await app(scope, receive, send_wrapper)
        finally:
            request_id.reset(token)
            self.latency.labels(path).observe(time.perf_counter() - started)
            self.requests.labels(path, scope.get("method", ""), str(status["code"])).inc()

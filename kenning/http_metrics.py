"""Prometheus metrics of HTTP traffic, in a registry owned by one app.

Served by several processes (``kenning serve --workers N``), every process writes its series
to files in ``shared_dir`` (prometheus_client's multiprocess mode, switched on by
``PROMETHEUS_MULTIPROC_DIR`` before the library is imported) and `HttpMetrics.render` sums
all processes' files, so any worker's ``/metrics`` answers for the whole server. Each answer
then names the process that gave it in ``x-kenning-worker``.
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.multiprocess import MultiProcessCollector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kenning.logs import request_id


class HttpMetrics:
    """Request counts and latencies by route and status; a request id per request.

    ``shared_dir`` is the multiprocess directory of a server of several processes (None for
    one process): `render` then gives every process's series summed.
    """

    def __init__(self, known_paths: tuple[str, ...] = (), shared_dir: str | None = None) -> None:
        # Unknown paths share one label so scanners cannot blow up the series count.
        self.known_paths = frozenset(known_paths)
        self.shared_dir = shared_dir
        self._process = [(b"x-kenning-worker", str(os.getpid()).encode())] if shared_dir else []
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

    @property
    def aggregated(self) -> bool:
        """Whether `render` includes every series of every process (router ones too)."""
        return self.shared_dir is not None

    def render(self) -> tuple[bytes, str]:
        """The exposition text and its content type."""
        if self.shared_dir is None:
            return generate_latest(self.registry), CONTENT_TYPE_LATEST
        # Read at each scrape: workers restarted by uvicorn add files of their own.
        every_process = CollectorRegistry()
        MultiProcessCollector(every_process, path=self.shared_dir)  # type: ignore[no-untyped-call]
        return generate_latest(every_process), CONTENT_TYPE_LATEST

    async def observe(self, app: ASGIApp, scope: Scope, receive: Receive, send: Send) -> None:
        """Run ``app`` for one request, counting and timing it."""
        if scope["type"] == "lifespan":
            await app(scope, receive, send)
            return
        if scope["type"] != "http":
            token = request_id.set(uuid.uuid4().hex)

            async def accept_wrapper(message: Message) -> None:
                if message["type"] == "websocket.accept" and self._process:
                    message = {**message, "headers": [*message.get("headers", ()), *self._process]}
                await send(message)

            try:
                await app(scope, receive, accept_wrapper)
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
                headers = message.setdefault("headers", [])
                headers.append((b"x-request-id", rid.encode()))
                headers.extend(self._process)
            await send(message)

        started = time.perf_counter()
        try:
            await app(scope, receive, send_wrapper)
        finally:
            request_id.reset(token)
            self.latency.labels(path).observe(time.perf_counter() - started)
            self.requests.labels(path, scope.get("method", ""), str(status["code"])).inc()

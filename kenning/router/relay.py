"""Running one model request through the scheduler: retries, preemption re-runs, streaming.

Buffered requests (``stream: false``, embeddings) are re-run elsewhere whenever an attempt is
preempted or its backend fails. A stream is re-run only while none of its bytes reached the
caller; after that a preemption or failure ends it with an ``{"error": ...}`` line.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field

import anyio

from kenning.router.config import RouterSettings
from kenning.router.errors import BackendFailure, NoBackendAvailable, Preempted, UpstreamError
from kenning.router.http.ndjson import LineSplitter, error_line, error_message, message_of
from kenning.router.scheduling.backends import BackendPool, Lease
from kenning.router.scheduling.leases import SessionLeases
from kenning.router.scheduling.policy import Priority, PriorityDecision
from kenning.router.scheduling.scheduler import Scheduler
from kenning.router.scheduling.sessions import KEYLESS, SessionOwner
from kenning.router.state.metrics import RouterMetrics
from kenning.router.upstream.http11 import Response, TransportError
from kenning.router.upstream.upstream import Buffered, open_stream, read_rest, send_buffered

PREEMPTED_MESSAGE = (
    "preempted: the GPU was reclaimed for a priority-0 request after this stream started; "
    "partial output discarded, retry the request"
)


@dataclass
class Job:
    """One model request: endpoint path, the caller's exact body, its priority, and whose it
    is (a priority-0 request renews that client's traffic lease; `KEYLESS`: Kenning's own)."""

    path: str
    body: bytes
    model: str
    decision: PriorityDecision
    stream: bool = False
    owner: SessionOwner = KEYLESS
    arrived: float = field(default_factory=time.monotonic)
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])


@dataclass
class OpenStream:
    """An upstream stream with status 200 whose body has not been read yet."""

    lease: Lease
    response: Response
    stack: AsyncExitStack

    async def close(self) -> None:
        with anyio.CancelScope(shield=True):
            await self.response.aclose()
            await self.stack.aclose()


def _cancelling() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


class Relay:
    def __init__(
        self,
        settings: RouterSettings,
        pool: BackendPool,
        scheduler: Scheduler,
        leases: SessionLeases,
        metrics: RouterMetrics,
    ) -> None:
        self.settings = settings
        self.pool = pool
        self.scheduler = scheduler
        self.leases = leases
        self.metrics = metrics

    def _attempts(self) -> range:
        return range(self.settings.max_attempts + self.settings.busy_retries)

    async def buffered(self, job: Job) -> Buffered:
        """The whole answer of a non-streaming request, re-run as needed."""
        with self._critical(job):
            try:
                result = await self._buffered(job)
            except BaseException as exc:
                self._count(job, "-", "cancelled" if _cancelling() else type(exc).__name__)
                raise
            self._count(job, result.backend, "ok" if result.status < 400 else "upstream_error")
            self._ttfb(job, result.backend)
            return result

    async def _buffered(self, job: Job) -> Buffered:
        exclude: set[str] = set()
        busy = 0
        for _ in self._attempts():
            try:
                async with self.scheduler.lease(job.decision, exclude) as lease:
                    backend = lease.backend
                    call = send_buffered(backend.client, backend.name, "POST", job.path, job.body)
                    if not lease.preemptible:
                        result = await call  # nothing can preempt it: spare a task
                    else:
                        task = asyncio.ensure_future(call)
                        lease.attach(task)
                        try:
                            result = await task
                        except asyncio.CancelledError:
                            if lease.preempted and not _cancelling():
                                continue
                            raise
                    self.pool.record_success(backend)
            except BackendFailure as exc:
                self._failed(exc, exclude)
                continue
            if result.status == 503 and busy < self.settings.busy_retries:
                busy += 1
                await asyncio.sleep(self.settings.busy_retry_delay_seconds * busy)
                continue
            return result
        raise NoBackendAvailable(f"gave up on {job.path} after repeated failures")

    def _failed(self, exc: BackendFailure, exclude: set[str]) -> None:
        exclude.add(exc.backend)
        backend = self.pool.by_name.get(exc.backend)
        if backend is not None:
            self.pool.record_failure(backend, str(exc))

    async def open_stream(self, job: Job, exclude: set[str] | None = None) -> Buffered | OpenStream:
        """Reach a backend that answered 200 (or return its error answer whole)."""
        exclude = exclude if exclude is not None else set()
        busy = 0
        for _ in self._attempts():
            stack = AsyncExitStack()
            lease: Lease | None = None
            try:
                lease = await stack.enter_async_context(self.scheduler.lease(job.decision, exclude))
                backend = lease.backend
                task = asyncio.ensure_future(
                    open_stream(backend.client, backend.name, job.path, job.body)
                )
                lease.attach(task)
                response = await task
            except asyncio.CancelledError:
                await stack.aclose()
                if lease is not None and lease.preempted and not _cancelling():
                    continue  # preempted before the head arrived
                raise
            except BackendFailure as exc:
                await stack.aclose()
                self._failed(exc, exclude)
                continue
            except BaseException:
                await stack.aclose()
                raise
            self.pool.record_success(backend)
            if response.status_code == 200:
                return OpenStream(lease, response, stack)
            try:
                answer = await read_rest(response, backend.name)
            finally:
                await stack.aclose()
            if answer.status == 503 and busy < self.settings.busy_retries:
                busy += 1
                await asyncio.sleep(self.settings.busy_retry_delay_seconds * busy)
                continue
            return answer
        raise NoBackendAvailable(f"gave up on {job.path} after repeated failures")

    async def stream_body(self, job: Job, first: OpenStream) -> AsyncIterator[bytes]:
        """NDJSON lines for the caller, re-opening elsewhere while nothing was sent."""
        committed = False
        exclude: set[str] = set()
        current: OpenStream | None = first
        outcome, backend_name = "cancelled", first.lease.backend.name
        last_error: str | None = None
        with self._critical(job):
            try:
                while current is not None:
                    backend_name = current.lease.backend.name
                    try:
                        async for line in self._lines(job, current):
                            message = error_message(line)
                            if message is not None and not committed:
                                raise UpstreamError(200, message)
                            if not committed:
                                self._ttfb(job, backend_name)
                            committed = True
                            yield line
                            if message is not None:
                                outcome = "upstream_error"
                                return
                        outcome = "ok"
                        return
                    except Preempted:
                        if committed:
                            outcome = "preempted"
                            yield error_line(PREEMPTED_MESSAGE)
                            return
                    except BackendFailure as exc:
                        self._failed(exc, exclude)
                        if committed:
                            outcome = "failed"
                            yield error_line(f"{exc}; the stream was interrupted")
                            return
                    except UpstreamError as exc:
                        exclude.add(backend_name)
                        last_error = exc.message
                    finally:
                        await current.close()
                    current = None
                    try:
                        reopened = await self.open_stream(job, exclude)
                    except NoBackendAvailable as exc:
                        outcome = "upstream_error"
                        yield error_line(last_error or str(exc))
                        return
                    if isinstance(reopened, Buffered):
                        outcome = "upstream_error"
                        yield error_line(message_of(reopened.body))
                        return
                    current = reopened
            finally:
                self._count(job, backend_name, outcome)

    async def _lines(self, job: Job, current: OpenStream) -> AsyncIterator[bytes]:
        splitter = LineSplitter()
        name = current.lease.backend.name
        chunks = _pumped(current) if job.decision.preemptible else current.response.aiter_bytes()
        try:
            async for chunk in chunks:
                for line in splitter.feed(chunk):
                    yield line
        except TransportError as exc:
            raise BackendFailure(name, f"{type(exc).__name__}: {exc}") from exc
        tail = splitter.flush()
        if tail:
            yield tail

    @contextlib.contextmanager
    def _critical(self, job: Job) -> Iterator[None]:
        if job.decision.priority is Priority.CRITICAL:
            with self.leases.critical_request(job.owner):
                yield
        else:
            yield

    def _count(self, job: Job, backend: str, outcome: str) -> None:
        self.metrics.requests.labels(job.decision.label, backend, outcome).inc()

    def _ttfb(self, job: Job, backend: str) -> None:
        elapsed = time.monotonic() - job.arrived
        self.metrics.ttfb.labels(job.decision.label, backend).observe(elapsed)


async def _pumped(current: OpenStream) -> AsyncIterator[bytes]:
    """Read upstream in a task attached to the lease, so preemption can cancel the read."""
    queue: asyncio.Queue[bytes | BaseException | None] = asyncio.Queue()

    async def pump() -> None:
        try:
            async for chunk in current.response.aiter_bytes():
                queue.put_nowait(chunk)
            queue.put_nowait(None)
        except Exception as exc:  # handed to the consumer, which classifies it
            queue.put_nowait(exc)

    def on_done(task: asyncio.Future[None]) -> None:
        # A task cancelled before its first step never runs its body, so signal from here.
        if task.cancelled():
            queue.put_nowait(Preempted())

    task = asyncio.ensure_future(pump())
    task.add_done_callback(on_done)
    current.lease.attach(task)
    try:
        while True:
            item = await queue.get()
            if item is None:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        task.cancel()

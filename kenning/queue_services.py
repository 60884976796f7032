"""The queue's adapters for one process, wired once: job store, work queue, event bus and
hub, status feeds, connection registry and the in-process workers."""

from __future__ import annotations

import asyncpg
import redis.asyncio as aioredis

from kenning.domain.queue.event_hub import EventHub
from kenning.domain.queue.progress import PositionWatch
from kenning.domain.queue.status_feed import StatusFeeds
from kenning.domain.queue.tasks import JobDeps
from kenning.domain.queue.worker import JobObserver, Worker, WorkerConfig
from kenning.settings import Settings
from kenning.storage.connections.registry import PgConnectionRegistry
from kenning.storage.db.database_url import database_name
from kenning.storage.queue.event_bus import RedisEventBus, channel_for
from kenning.storage.queue.job_leases import PgWorkQueue, is_operational_pg
from kenning.storage.queue.job_queue import PgJobQueue
from kenning.storage.queue.job_wakeup import PgWakeup
from kenning.storage.queue.snapshot import PgQueueReader
from kenning.storage.queue.worker_registry import RedisWorkerRegistry, registry_key


def worker_config(settings: Settings) -> WorkerConfig:
    """Worker slots and lease timing from the settings."""
    return WorkerConfig(
        priority_slots=settings.queue_priority_slots,
        bulk_slots=settings.queue_bulk_slots,
        lease_seconds=settings.queue_lease_seconds,
        recover_every=settings.queue_recover_seconds,
        idle_wait=settings.queue_idle_seconds,
        priority_linger=settings.queue_priority_linger_seconds,
    )


class QueueServices:
    """Built with the runtime (connects nothing); ``start_workers`` and ``aclose`` run in
    the lifespan of a server or a worker process."""

    def __init__(self, settings: Settings, pool: asyncpg.Pool, redis: aioredis.Redis) -> None:
        database = database_name(settings.database_url)
        self.settings = settings
        self.bus = RedisEventBus(redis, channel_for(database))
        self.registry = RedisWorkerRegistry(redis, registry_key(database))
        self.jobs = PgJobQueue(pool, self.bus)
        self.work = PgWorkQueue(pool, self.bus)
        self.reader = PgQueueReader(pool, self.registry)
        self.connections = PgConnectionRegistry(pool)
        self.hub = EventHub(self.bus)
        self.feeds = StatusFeeds(self.hub, self.reader, settings.queue_status_refresh_seconds)
        # One watch of waiting jobs' places for every ingestionProgress subscriber here.
        self.positions = PositionWatch(self.hub, self.reader)
        self.workers: list[Worker] = []
        self._wakeup: PgWakeup | None = None

    async def start_workers(
        self, deps: JobDeps, count: int, observe: JobObserver | None = None
    ) -> list[Worker]:
        """Start ``count`` workers running jobs with ``deps`` (``Runtime.job_deps()``);
        ``observe`` hears how long each job took and how it ended."""
        if self._wakeup is None:
            self._wakeup = PgWakeup(self.settings)
        config = worker_config(self.settings)
        started = []
        for _ in range(count):
            worker = Worker(
                self.work,
                deps,
                self._wakeup,
                self.registry,
                config,
                operational=is_operational_pg,
                observe=observe,
            )
            await worker.start()
            started.append(worker)
        self.workers.extend(started)
        return started

    async def stop_workers(self) -> None:
        workers, self.workers = self.workers, []
        for worker in workers:
            await worker.stop()
        if self._wakeup is not None:
            await self._wakeup.aclose()
            self._wakeup = None

    def workers_state(self) -> tuple[bool, str]:
        """Whether this process's workers all run; ``off`` when it runs none."""
        if not self.workers:
            return True, "off (no workers in this process)"
        alive = sum(worker.running for worker in self.workers)
        if alive == len(self.workers):
            return True, "ok"
        return False, f"stopped: {alive} of {len(self.workers)} workers running"

    async def live_counts(self) -> list[tuple[str, str, int]]:
        """(lane, status, count) of QUEUED and RUNNING jobs in the whole queue."""
        return await self.reader.live_counts()

    async def aclose(self) -> None:
        """Stop workers, feeds and the bus listener."""
        await self.stop_workers()
        await self.feeds.aclose()
        await self.hub.aclose()

"""What a running server holds: settings, pools and adapters, built in the app's lifespan."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import asyncpg
import redis.asyncio as aioredis

from kenning.domain.embedding import Embedder
from kenning.domain.ingest import IngestDeps
from kenning.router import Router
from kenning.settings import Settings
from kenning.storage.alias_registry import PgAliasRegistry
from kenning.storage.api_keys import PgApiKeys
from kenning.storage.chunk_search import PgChunkIndex, VectorScan
from kenning.storage.graph_reads import PgGraphReader
from kenning.storage.knowledge_store import PgKnowledgeStore
from kenning.storage.queue_services import QueueServices


@dataclass(slots=True)
class Runtime:
    """Open resources shared by every request of one process."""

    settings: Settings
    pool: asyncpg.Pool
    redis: aioredis.Redis
    embedder: Embedder
    # The model router this process runs (mounted at /ollama, /router), if configured.
    router: Router | None = None
    store: PgKnowledgeStore = field(init=False)
    aliases: PgAliasRegistry = field(init=False)
    api_keys: PgApiKeys = field(init=False)
    graph: PgGraphReader = field(init=False)
    chunk_index: PgChunkIndex = field(init=False)
    queue: QueueServices = field(init=False)
    started_at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        self.store = PgKnowledgeStore(self.pool, self.settings.graph_name)
        self.aliases = PgAliasRegistry(self.pool)
        self.api_keys = PgApiKeys(self.pool)
        self.graph = PgGraphReader(self.pool, self.settings.graph_name)
        self.chunk_index = PgChunkIndex(
            self.pool,
            VectorScan(self.settings.search_ef_search, self.settings.search_max_scan_tuples),
        )
        self.queue = QueueServices(self.settings, self.pool, self.redis)

    def ingest_deps(self) -> IngestDeps:
        """The ports an ingest runs with, under the server's default policies."""
        return IngestDeps(
            store=self.store,
            aliases=self.aliases,
            embedder=self.embedder,
            secret_policy=self.settings.secret_policy,
            chunk_limit=self.settings.chunk_limit,
        )

"""What a running server holds: settings, pools and the adapter of every port, built once in
the app's lifespan, and the state of the parts they run on. ``kenning.runtime.Runtime`` adds
the dependencies each use case runs with."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import asyncpg
import redis.asyncio as aioredis
from prometheus_client import CollectorRegistry

from kenning.domain.access.project_groups import ProjectGroupStore
from kenning.domain.embedding import Embedder
from kenning.domain.erasure.ports import ErasureStore, ReceiptBook
from kenning.domain.erasure.tombstone import Tombstones
from kenning.domain.extraction.check_ins import CheckInStore
from kenning.domain.graph.chunk_view import ChunkReader
from kenning.domain.graph.find import NodeFinder
from kenning.domain.graph.model import GraphReader
from kenning.domain.health import PartState
from kenning.domain.ingestion.aliases import AliasRegistry
from kenning.domain.ingestion.ports import KnowledgeStore
from kenning.domain.ingestion.relations import RelationStore
from kenning.domain.memory.changes import ChangeLog
from kenning.domain.memory.knowledge_versions import KnowledgeVersionStore
from kenning.domain.memory.node_history import NodeHistoryStore
from kenning.domain.memory.procedure_versions import ProcedureVersionStore
from kenning.domain.memory.procedures import ProcedureStore
from kenning.domain.memory.rules import RuleStore
from kenning.domain.memory.session import SessionStore
from kenning.domain.memory.session_deletes import SessionEntryDeleter
from kenning.domain.memory.user_knowledge import UserKnowledgeReader
from kenning.domain.models.health import ModelWatch
from kenning.domain.models.ports import ModelClient
from kenning.domain.sources.code.progress import RepositoryBoard, RepositoryProgress
from kenning.domain.sources.crawl.crawl_loop import CrawlProgress
from kenning.domain.sources.crawl.crawl_run import ProgressBoard
from kenning.domain.sources.files.describer import ModelImageDescriber
from kenning.domain.sources.files.file_runner import FileWork
from kenning.metrics import ServiceMetrics
from kenning.queue_services import QueueServices
from kenning.router import Router
from kenning.settings import Settings
from kenning.storage.access.api_keys import PgApiKeys
from kenning.storage.access.project_groups import PgProjectGroups
from kenning.storage.db.database_url import database_name
from kenning.storage.db.health import database_versions, probe_parts
from kenning.storage.embedders.observed import ObservedEmbedder
from kenning.storage.erasure.erasure_unit import PgErasureStore
from kenning.storage.erasure.receipts import PgReceipts, PgTombstones
from kenning.storage.extraction.check_ins import PgCheckIns
from kenning.storage.graph.chunk_reads import PgChunkReader
from kenning.storage.graph.reader import PgGraphReader
from kenning.storage.ingestion.alias_registry import PgAliasRegistry
from kenning.storage.ingestion.knowledge_store import PgKnowledgeStore
from kenning.storage.ingestion.relation_store import PgRelationStore
from kenning.storage.memory.changes import PgChangeLog
from kenning.storage.memory.knowledge_versions import PgKnowledgeVersions
from kenning.storage.memory.node_history import PgNodeHistory
from kenning.storage.memory.procedure_versions import PgProcedureVersions
from kenning.storage.memory.procedures import PgProcedureStore
from kenning.storage.memory.rules import PgRuleStore
from kenning.storage.memory.session_entries import PgSessionStore
from kenning.storage.memory.user_knowledge import PgUserKnowledge
from kenning.storage.models.factory import create_model_client
from kenning.storage.queue.progress_board import RedisProgressBoard, progress_prefix
from kenning.storage.retrieval.bm25_sql import Bm25
from kenning.storage.retrieval.chunk_search import PgChunkIndex, VectorScan
from kenning.storage.sources.code import Repositories
from kenning.storage.sources.files.file_work import file_work


@dataclass(slots=True)
class RuntimeParts:
    """Open resources shared by every request of one process: the adapters of every port,
    built once from the settings, and the state of the parts they run on."""

    settings: Settings
    pool: asyncpg.Pool
    redis: aioredis.Redis
    embedder: Embedder
    # The model router this process runs (mounted at /ollama, /router), if configured.
    router: Router | None = None
    # Kenning's own model calls (structuring, extraction). Left out, the adapter the
    # settings name, through ``router`` when there is one; the lifespan passes and closes it.
    models: ModelClient = None  # type: ignore[assignment]
    # Where what the process does is counted; a private registry when not given.
    metrics: ServiceMetrics = field(default_factory=lambda: ServiceMetrics(CollectorRegistry()))
    store: KnowledgeStore = field(init=False)
    aliases: AliasRegistry = field(init=False)
    # Concrete: the composition root also authenticates, tracks and closes with it.
    api_keys: PgApiKeys = field(init=False)
    graph: GraphReader = field(init=False)
    finder: NodeFinder = field(init=False)  # the same reader, finding nodes by text
    chunks: ChunkReader = field(init=False)
    # Concrete: the lifespan stops its background loads of resident vectors.
    chunk_index: PgChunkIndex = field(init=False)
    queue: QueueServices = field(init=False)
    project_groups: ProjectGroupStore = field(init=False)
    user_knowledge: UserKnowledgeReader = field(init=False)
    session_entries: SessionStore = field(init=False)
    session_deletes: SessionEntryDeleter = field(init=False)  # the same store
    procedures: ProcedureStore = field(init=False)
    rules: RuleStore = field(init=False)
    knowledge_versions: KnowledgeVersionStore = field(init=False)
    procedure_versions: ProcedureVersionStore = field(init=False)
    changes: ChangeLog = field(init=False)  # the audit trail of memory changes
    relations: RelationStore = field(init=False)
    node_history: NodeHistoryStore = field(init=False)  # node corrections and their past
    check_ins: CheckInStore = field(init=False)
    crawl_progress: ProgressBoard = field(init=False)  # live counts of crawl jobs
    repository_progress: RepositoryBoard = field(init=False)  # and of repository jobs
    repositories: Repositories = field(init=False)  # where repository jobs read code
    file_work: FileWork = field(init=False)  # uploads kept, checked and extracted
    erasures: ErasureStore = field(init=False)
    receipts: ReceiptBook = field(init=False)  # what each erasure removed
    tombstones: Tombstones = field(init=False)  # erased subjects, checked on every write
    model_watch: ModelWatch = field(init=False)  # whether each model Kenning uses answers
    started_at: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        if self.models is None:
            self.models = create_model_client(self.settings, router=self.router)
        self.store = PgKnowledgeStore(self.pool, self.settings.graph_name)
        self.aliases = PgAliasRegistry(self.pool)
        # With Redis, revocations reach every process at once (see storage.key_revocations).
        self.api_keys = PgApiKeys(self.pool, redis=self.redis)
        graph = PgGraphReader(self.pool, self.settings.graph_name)
        self.graph, self.finder = graph, graph
        self.chunks = PgChunkReader(self.pool)
        self.chunk_index = PgChunkIndex(
            self.pool,
            VectorScan.from_settings(self.settings),
            Bm25(
                budget=self.settings.search_keyword_budget,
                rescore_per_row=self.settings.search_keyword_rescore,
            ),
            on_resident=self.metrics.resident_rows.set,
        )
        self.queue = QueueServices(self.settings, self.pool, self.redis)
        self.project_groups = PgProjectGroups(self.pool)
        self.user_knowledge = PgUserKnowledge(self.pool)
        self.session_entries = self.session_deletes = PgSessionStore(self.pool)
        self.procedures = PgProcedureStore(self.pool)
        self.rules = PgRuleStore(self.pool)
        self.knowledge_versions = PgKnowledgeVersions(self.pool)
        self.procedure_versions = PgProcedureVersions(self.pool)
        self.changes = PgChangeLog(self.pool)
        self.relations = PgRelationStore(self.pool, self.settings.graph_name)
        self.node_history = PgNodeHistory(self.pool, self.settings.graph_name)
        self.check_ins = PgCheckIns(self.pool)
        self.repositories = Repositories(
            self.settings.repository_roots,
            self.settings.repository_dir,
            allow_private=self.settings.repository_allow_private,
        )
        vision = self.settings.model_vision
        describer = ModelImageDescriber(self.models, vision) if vision else None
        self.file_work = file_work(
            self.pool,
            max_file_bytes=self.settings.max_file_bytes,
            max_chunks=self.settings.max_chunks_per_file,
            max_html_nodes=self.settings.max_html_nodes,
            describer=describer,
        )
        self.erasures = PgErasureStore(self.pool, self.settings.graph_name)
        self.receipts = PgReceipts(self.pool)
        self.tombstones = Tombstones(PgTombstones(self.pool), self.settings.erasure_tombstone)
        self.model_watch = ModelWatch(self.models, self.settings.model_roles())
        database = database_name(self.settings.database_url)
        self.crawl_progress = RedisProgressBoard(
            self.redis, progress_prefix(database, "crawl"), CrawlProgress
        )
        self.repository_progress = RedisProgressBoard(
            self.redis, progress_prefix(database, "repository"), RepositoryProgress
        )

    async def parts(self) -> list[PartState]:
        """Every part's state: PostgreSQL, AGE, pgvector, Redis, the embedder, the workers."""
        probed = await probe_parts(self.pool, self.redis, self.settings.graph_name)
        return [*probed, *await self.process_parts()]

    async def schema_revision(self) -> str | None:
        """The database's migration revision; None when it cannot be read now."""
        try:
            async with self.pool.acquire() as conn:
                return (await database_versions(conn)).schema_revision
        except Exception:  # down: the parts say so
            return None

    async def process_parts(self) -> list[PartState]:
        """The parts inside this process: the embedder and the queue workers."""
        embedder_ok, embedder_detail = (
            await self.embedder.check()
            if isinstance(self.embedder, ObservedEmbedder)
            else (True, "ok")
        )
        workers_ok, workers_detail = self.queue.workers_state()
        return [
            PartState("embedder", embedder_ok, self.embedder.model, embedder_detail),
            PartState("workers", workers_ok, None, workers_detail),
        ]

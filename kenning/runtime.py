"""The composition root each request and job reaches: ``Runtime``, the parts of the process
(``runtime_parts``) and the dependencies each use case runs with, built from them and the
settings, so that neither face (GraphQL resolvers, MCP tools) reads a setting."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from datetime import timedelta

from kenning.domain.erasure.erase import ERASE_TASK, erasure_runner
from kenning.domain.erasure.erase_request import ErasureDeps
from kenning.domain.extraction.extract_source import ExtractionDeps
from kenning.domain.extraction.structure import StructurePorts
from kenning.domain.graph.edges import EdgePorts
from kenning.domain.graph.node_list import NodeListPorts
from kenning.domain.graph.node_update import NodeEditPorts
from kenning.domain.graph.reads import GraphPorts
from kenning.domain.ingestion.checked_graph import GraphWritePorts
from kenning.domain.ingestion.ingest import IngestDeps
from kenning.domain.ingestion.purge_request import PurgePorts
from kenning.domain.memory import node_history
from kenning.domain.memory.agent_context import MemoryPorts
from kenning.domain.memory.knowledge_versions import KnowledgeDeps
from kenning.domain.memory.outcome_extraction import TASK_OUTCOME_TASK, task_outcome_preparer
from kenning.domain.memory.outcome_request import OutcomeDeps
from kenning.domain.memory.owners import user_key_of
from kenning.domain.memory.procedure_request import ProcedureDeps
from kenning.domain.memory.session import SessionDeps
from kenning.domain.memory.user_search import UserIndex
from kenning.domain.queue.ingestion_request import QueuePorts
from kenning.domain.queue.job_reads import JobPorts
from kenning.domain.queue.tasks import JobDeps, TaskRunner
from kenning.domain.retrieval.evidence_request import EvidencePorts
from kenning.domain.retrieval.search import ChunkIndex
from kenning.domain.retrieval.search_service import SearchService
from kenning.domain.sources.code.repository_ingest import RepositoryQueuePorts
from kenning.domain.sources.code.repository_request import REPOSITORY_TASK
from kenning.domain.sources.code.runner import RepositoryPorts, repository_runner
from kenning.domain.sources.crawl.crawl_job import CRAWL_TASK
from kenning.domain.sources.crawl.crawl_request import CrawlPorts
from kenning.domain.sources.crawl.crawl_run import crawl_runner
from kenning.domain.sources.document_ingest import DocumentPorts
from kenning.domain.sources.files.file_job import FILE_TASK
from kenning.domain.sources.files.file_runner import file_runner
from kenning.domain.sources.files.file_upload import FilePorts
from kenning.domain.sources.files.sweep import file_sweep
from kenning.domain.sources.listing import SourceCatalog
from kenning.domain.sources.unit_purge import UnitPurgePorts
from kenning.runtime_parts import RuntimeParts
from kenning.storage.extraction.cache import PgExtractionCache, PgSourceChunks
from kenning.storage.extraction.current_edges import PgCurrentEdges
from kenning.storage.extraction.held_store import held_store
from kenning.storage.graph.node_list import PgNodeListing
from kenning.storage.sources.catalog import PgSourceCatalog
from kenning.storage.sources.code import TreeSitterParser
from kenning.storage.sources.crawl import SafeFetcher


@dataclass(slots=True)
class Runtime(RuntimeParts):
    """The process's parts, and the ready dependencies of every use case."""

    # The search service, built on first use (``search_service``).
    _search: SearchService | None = field(default=None, init=False)

    def memory_ports(self) -> MemoryPorts:
        """Every store ``agentContext`` reads, as GraphQL and MCP both assemble it."""
        return MemoryPorts(
            embedder=self.embedder,
            index=self.chunk_index,
            graph=self.graph,
            chunks=self.chunks,
            knowledge=self.user_knowledge,
            session=self.session_entries,
            procedures=self.procedures,
            rules=self.rules,
            groups=self.project_groups,
        )

    def job_deps(self) -> JobDeps:
        """What queue workers run jobs with: ingest, graph extraction with the extraction
        model, and the registered task preparers (``domain.queue.tasks``)."""
        extraction = ExtractionDeps(
            client=self.models,
            chunks=PgSourceChunks(self.pool),
            cache=PgExtractionCache(self.pool),
            store=self.store,
            aliases=self.aliases,
            model=self.settings.model_extract,
            max_retries=self.settings.model_max_retries,
            edges=PgCurrentEdges(self.pool, self.settings.graph_name),
        )
        return JobDeps(
            ingest=self.ingest_deps(),
            extraction=extraction,
            preparers={
                TASK_OUTCOME_TASK: task_outcome_preparer(
                    self.models,
                    model=self.settings.model_extract,
                    max_retries=self.settings.model_max_retries,
                    policy=self.settings.secret_policy,
                )
            },
            runners={
                CRAWL_TASK: self.crawl_runner(),
                REPOSITORY_TASK: self.repository_runner(),
                FILE_TASK: file_runner(self.file_work),
                ERASE_TASK: erasure_runner(self.erasures, self.receipts),
            },
            held_store=held_store,
            lease_seconds=self.settings.queue_lease_seconds,
            model_wait_seconds=self.settings.model_wait_hours * 3600,
            upkeep=(file_sweep(self.file_work.files, self.settings.file_orphan_hours),),
        )

    def crawl_runner(self) -> TaskRunner:
        """The runner of crawl jobs: a ``SafeFetcher`` per job under the crawl settings."""
        s = self.settings
        return crawl_runner(
            lambda: SafeFetcher(
                allow_private=s.crawl_allow_private,
                max_bytes=s.crawl_max_page_bytes,
                max_html_nodes=s.max_html_nodes,
                min_interval=s.crawl_min_interval_seconds,
            ),
            self.graph,
            self.crawl_progress,
            concurrency=s.crawl_concurrency,
        )

    def repository_runner(self) -> TaskRunner:
        """The runner of repository jobs: tree-sitter, git, the alias book and the graph."""
        ports = RepositoryPorts(
            self.repositories,
            TreeSitterParser(),
            self.aliases,
            self.graph,
            self.repository_progress,
        )
        return repository_runner(ports)

    def ingest_deps(self) -> IngestDeps:
        """The ports an ingest runs with, under the server's default policies."""
        return IngestDeps(
            store=self.store,
            aliases=self.aliases,
            embedder=self.embedder,
            secret_policy=self.settings.secret_policy,
            chunk_limit=self.settings.chunk_limit,
            tombstones=self.tombstones,
        )

    def structure_ports(self) -> StructurePorts:
        """The model, check-in store, load ports and model settings ``structureKnowledge``
        uses (over GraphQL and MCP)."""
        settings = self.settings
        return StructurePorts(
            models=self.models,
            check_ins=self.check_ins,
            ingest=self.ingest_deps(),
            model=settings.model_structure,
            max_retries=settings.model_max_retries,
            keep_text=settings.check_in_keep_text,
        )

    def knowledge_deps(self) -> KnowledgeDeps:
        """The ports storing, forgetting and reading user knowledge's versions run with."""
        return KnowledgeDeps(
            self.ingest_deps(), self.knowledge_versions, self.changes, self.queue.jobs
        )

    # memory use cases
    def outcome_deps(self) -> OutcomeDeps:
        """The secret policy and queue ``recordTaskOutcome`` records with (GraphQL and MCP)."""
        return OutcomeDeps(
            self.settings.secret_policy, self.queue.jobs, self.queue.connections, self.model_watch
        )

    def session_deps(self) -> SessionDeps:
        """The store, queue and policies an append to session memory runs with."""
        return SessionDeps(
            store=self.session_entries,
            queue=self.queue.jobs,
            connections=self.queue.connections,
            policy=self.settings.secret_policy,
            ttl=timedelta(days=self.settings.session_ttl_days),
            guard=self.tombstones,
        )

    def procedure_deps(self) -> ProcedureDeps:
        """The stores, embedder, change log and erased subjects procedures run with."""
        return ProcedureDeps(
            self.procedures, self.procedure_versions, self.embedder, self.changes, self.tombstones
        )

    def erasure_deps(self) -> ErasureDeps:
        """Where ``eraseSubject`` opens its receipt and queues the erasure."""
        return ErasureDeps(self.receipts, self.queue.jobs)

    # ingestion use cases
    def document_ports(self) -> DocumentPorts:
        """What ``ingest`` (GraphQL) and ``ingest_document`` (MCP) run with."""
        return DocumentPorts(
            ingest=self.ingest_deps(),
            connections=self.queue.connections,
            jobs=self.queue.jobs,
            extraction_by_kind=self.settings.extraction_by_kind,
            extract_model=self.settings.model_extract,
            models=self.model_watch,
        )

    def graph_write_ports(self) -> GraphWritePorts:
        """What ``ingestGraph``, ``loadKnowledge`` and ``ingestGitCommits`` run with."""
        return GraphWritePorts(self.ingest_deps(), self.queue.connections)

    def file_ports(self) -> FilePorts:
        """What ``ingestFile`` (GraphQL) and ``ingest_file`` (MCP) run with."""
        return FilePorts(self.file_work, self.queue.jobs, self.queue.connections)

    def crawl_ports(self) -> CrawlPorts:
        """What ``crawl`` and ``crawl_status`` (GraphQL and MCP) run with."""
        return CrawlPorts(self.queue.jobs, self.crawl_progress, self.queue.connections)

    def purge_ports(self) -> PurgePorts:
        """What ``purgeSource``, ``purgeConnection`` and ``purge_source`` run with."""
        return PurgePorts(self.store, self.queue.jobs)

    def repository_queue_ports(self) -> RepositoryQueuePorts:
        """What ``ingestRepository`` (GraphQL) and ``ingest_repository`` (MCP) run with."""
        q = self.queue
        return RepositoryQueuePorts(self.repositories, q.jobs, q.connections)

    @property
    def anonymous_allowed(self) -> bool:
        """Whether a request without a key is served as the anonymous reader (file routes)."""
        return self.settings.allow_anonymous

    # retrieval use cases
    def search_service(self) -> SearchService:
        """The one search service of this process, under the server's search settings."""
        if self._search is None:
            self._search = SearchService(
                embedder=self.embedder,
                index_for=self._user_index,
                chunks=self.chunks,
                fusion=self.settings.search_fusion_weights(),
                max_limit=self.settings.search_max_limit,
                observe=self.metrics.observe_search,
            )
        return self._search

    def _user_index(self, user_key: str | None) -> ChunkIndex:
        return UserIndex(self.chunk_index, user_key_of(user_key))

    def graph_ports(self) -> GraphPorts:
        """What the graph reads (``path``, ``neighbors``, ``findNodes``) use."""
        return GraphPorts(self.graph, self.finder, self.aliases)

    def evidence_ports(self) -> EvidencePorts:
        """What ``evidencePack`` reads."""
        return EvidencePorts(self.embedder, self.chunk_index, self.graph)

    def queue_ports(self) -> QueuePorts:
        """What queueing a document uses, with the server's secret policy and extractions."""
        s = self.settings
        return QueuePorts(
            self.queue.jobs,
            self.queue.connections,
            self.tombstones,
            s.secret_policy,
            s.extraction_by_kind,
            self.model_watch,
        )

    def job_ports(self) -> JobPorts:
        """What the job reads and subscriptions use."""
        q = self.queue
        refresh = self.settings.queue_status_refresh_seconds
        return JobPorts(q.jobs, q.hub, q.positions, q.feeds, refresh)

    def edge_ports(self) -> EdgePorts:
        """What an edge's history and its retraction use."""
        return EdgePorts(self.relations, self.aliases)

    def node_edit_ports(self) -> NodeEditPorts:
        """What ``updateNode`` uses, under the server's secret policy."""
        policy = self.settings.secret_policy
        update = functools.partial(node_history.update_node, store=self.node_history, policy=policy)
        return NodeEditPorts(update, self.graph, self.aliases)

    # source listings and unit purges
    def source_catalog(self) -> SourceCatalog:
        """What ``sources``, ``storedFiles`` and ``list_sources`` read."""
        return PgSourceCatalog(self.pool)

    def unit_purge_ports(self) -> UnitPurgePorts:
        """What ``purgeCrawl``, ``purgeRepository`` and their MCP tools run with."""
        return UnitPurgePorts(PgSourceCatalog(self.pool), self.store, self.queue.jobs)

    def node_list_ports(self) -> NodeListPorts:
        """What ``allNodes`` reads."""
        return NodeListPorts(PgNodeListing(self.pool, self.settings.graph_name), self.graph)

"""The one configuration object, read from ``KENNING_*`` variables and an optional ``.env``."""

from __future__ import annotations

import json
import re
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from kenning.domain.erasure.model import TombstoneMode
from kenning.domain.extraction.mode import ExtractionMode
from kenning.domain.ingestion.secrets.policy import SecretPolicy
from kenning.domain.models.health import ModelRole
from kenning.domain.retrieval.search import FusionMethod, FusionWeights
from kenning.domain.sources.html_limits import MAX_HTML_NODES
from kenning.router.config import RouterSettings

DEFAULT_STACK_DIR = Path("/var/lib/kenning/stack")
_ORIGIN = re.compile(r"https?://[A-Za-z0-9.\-\[\]:]+/?")


class EmbedderKind(StrEnum):
    """Which adapter computes embeddings."""

    LOCAL = "local"
    OLLAMA = "ollama"
    HASH = "hash"
    WORDS = "words"


class Settings(BaseSettings):
    """Everything Kenning can be told; defaults point at the local stack.

    Example: ``Settings(database_url="postgresql://u@db:5432/kenning")``.
    """

    model_config = SettingsConfigDict(
        env_prefix="KENNING_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    database_url: str = "postgresql://postgres@127.0.0.1:5433/kenning"
    redis_url: str = "redis://127.0.0.1:6380/0"
    db_pool_min: int = Field(default=1, ge=0)
    db_pool_max: int = Field(default=10, ge=1)

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    # permessage-deflate on websockets: off by default; subscription messages are small, and
    # compressing them per socket costs server and client CPU on every delivery (fan-out
    # bench, 2,000 queueStatus subscribers: ~134 vs ~118 us server CPU per message, client
    # CPU halved). On saves bandwidth on slow links.
    ws_per_message_deflate: bool = False
    # Local development (`make run` sets it): GraphiQL on unless told otherwise.
    development: bool = False
    # The GraphiQL page at GET /graphql (served by Kenning, no CDN); unset follows
    # `development`, so production servers do not show it unless asked to.
    graphiql: bool | None = None
    # Origins a browser UI may call the API from (comma-separated or a JSON list); empty
    # turns CORS off. "*" allows any origin (keys travel in a header, never in cookies).
    cors_origins: Annotated[list[str], NoDecode] = Field(default_factory=list)
    # Lets requests without a key read global data only; for local experiments, never
    # production. Logged loudly at startup when on.
    allow_anonymous: bool = False
    graphql_max_depth: int = Field(default=12, ge=2, le=100)
    graphql_max_tokens: int = Field(default=4000, ge=100, le=100_000)
    graphql_max_aliases: int = Field(default=64, ge=1, le=10_000)
    # Fields a document selects once its fragments are spread (a fragment bomb's measure).
    graphql_max_fields: int = Field(default=5000, ge=100, le=1_000_000)
    graphql_introspection: bool = True
    # Largest request body /graphql reads (requestIngestions of many documents included).
    max_request_bytes: int = Field(default=64 * 1024 * 1024, ge=1024)
    migrate_on_start: bool = False
    log_level: str = "INFO"
    # JSON lines (one object per line) or plain text lines, for every logger of the process.
    log_format: Literal["json", "text"] = "json"
    # The older switch: false means log_format text.
    log_json: bool = True

    graph_name: str = "kenning"
    embedding_dim: int = Field(default=384, ge=1, le=16000)
    embedding_model: str = "all-MiniLM-L6-v2"
    embedder: EmbedderKind = EmbedderKind.LOCAL
    ollama_url: str = "http://127.0.0.1:11434"
    ollama_timeout: float = Field(default=120.0, gt=0)
    embedding_batch_size: int = Field(default=32, ge=1, le=1024)
    secret_policy: SecretPolicy = SecretPolicy.REJECT
    # A write naming a subject an erasure removed: names replaced by [erased], or refused
    # with ErasedSubject (kenning.domain.erasure.tombstone).
    erasure_tombstone: TombstoneMode = TombstoneMode.REDACT
    # all-MiniLM-L6-v2 reads 256 tokens (about 1,000-1,200 characters); longer chunks
    # would be embedded by their beginning only.
    chunk_limit: int = Field(default=1000, ge=200, le=20000)
    # Search: why these defaults, see docs/benchmarks.md ("HYBRID's fusion on SciFact").
    search_max_limit: int = Field(default=100, ge=1, le=1000)
    search_rrf_k: int = Field(default=60, ge=1)
    search_vector_weight: float = Field(default=1.0, ge=0)
    search_keyword_weight: float = Field(default=1.0, ge=0)
    search_fusion: FusionMethod = FusionMethod.SCORES
    # pgvector HNSW: candidate list per scan, and how far an iterative (filtered) scan may go.
    search_ef_search: int = Field(default=200, ge=1, le=1000)
    search_max_scan_tuples: int = Field(default=50_000, ge=1)
    # Exact vector search when an HNSW probe's best similarity is below search_exact_below,
    # for readers whose clients hold at most search_exact_max_rows chunks (see
    # kenning.storage.retrieval.chunk_search); search_exact_below -1 or
    # search_exact_max_rows 0 turns it off.
    search_exact_below: float = Field(default=0.3, ge=-1.0, le=1.0)
    search_exact_max_rows: int = Field(default=25_000, ge=0)
    # Above that, up to this many chunks of the reader's clients are compared in the
    # process's memory (kenning.storage.retrieval.resident); 0 turns it off.
    search_resident_rows: int = Field(default=200_000, ge=0)
    # KEYWORD top-k: postings read per query word and client (best by impact), and the
    # candidates scored exactly per wanted row (see kenning.storage.retrieval.bm25_sql).
    search_keyword_budget: int = Field(default=1000, ge=1, le=1_000_000)
    search_keyword_rescore: int = Field(default=4, ge=1, le=1000)
    # Queue: workers inside `kenning serve` (0 leaves the work to `kenning worker`), slots
    # per lane for each worker, and lease timing (see kenning.domain.queue.worker).
    queue_workers: int = Field(default=1, ge=0, le=64)
    queue_priority_slots: int = Field(default=2, ge=1, le=256)
    queue_bulk_slots: int = Field(default=2, ge=1, le=256)
    queue_lease_seconds: float = Field(default=30.0, ge=1.0, le=3600.0)
    queue_recover_seconds: float = Field(default=10.0, ge=0.1, le=3600.0)
    queue_idle_seconds: float = Field(default=2.0, ge=0.05, le=60.0)
    # After a priority job ends, a worker starts no bulk job for this long (0: off).
    queue_priority_linger_seconds: float = Field(default=0.25, ge=0.0, le=10.0)
    queue_status_refresh_seconds: float = Field(default=5.0, ge=0.1, le=300.0)
    # Crawling (kenning.domain.sources.crawl): private/loopback/link-local targets are
    # refused unless allowed; requests to one host are spaced; a page over the size is skipped
    # (the size as sent, and at every layer of its Content-Encoding, decoding stopping there).
    crawl_allow_private: bool = False
    crawl_min_interval_seconds: float = Field(default=1.0, ge=0.0, le=60.0)
    crawl_max_page_bytes: int = Field(default=5 * 1024 * 1024, ge=1024, le=100 * 1024 * 1024)
    crawl_concurrency: int = Field(default=4, ge=1, le=32)
    # Elements and attributes one HTML page may have (a crawled page, an HTML file, an
    # e-mail's HTML body), counted before it is parsed: extraction costs ~2 KB a node, and
    # no real page up to the 5 MiB page cap measured has more than 207,000.
    max_html_nodes: int = Field(default=MAX_HTML_NODES, ge=1_000)
    # Code repositories (kenning.domain.sources.code): local paths must lie under one of
    # these absolute directories (comma-separated or a JSON list; empty refuses every local
    # path, file:// URLs included); remote clones are cached in repository_dir.
    repository_roots: Annotated[list[str], NoDecode] = Field(default_factory=list)
    repository_dir: Path = Path("/var/lib/kenning/repositories")
    # A gitUrl whose host resolves to a loopback, private or link-local address is refused
    # unless this allows it (a git server on the internal network).
    repository_allow_private: bool = False
    # Files (kenning.domain.sources.files): the largest upload, and the vision model that
    # describes images at the router's document priority (unset: OCR text alone is indexed).
    max_file_bytes: int = Field(default=100 * 1024 * 1024, ge=1024)
    # An upload its job never indexed (cancelled, failed, or never queued) keeps its original
    # this long, so the job can be retried; then the file sweep deletes it.
    file_orphan_hours: float = Field(default=24.0, ge=0.1, le=24 * 366)
    # Chunks one file may be stored as, its attachments included; a file over it fails its
    # job TOO_LARGE with nothing stored. The largest realistic files the other limits let
    # through (2,000 dense PDF pages, a sheet of 1,000,000 short cells) make about 10,000.
    max_chunks_per_file: int = Field(default=20_000, ge=1)
    model_vision: str | None = Field(default=None, min_length=1, max_length=200)
    # Kenning's own model calls (kenning.domain.models) go through the in-process router
    # when this process runs one, else to `ollama_url`; one model per purpose.
    model_structure: str = Field(default="qwen2.5:7b", min_length=1, max_length=200)
    model_extract: str = Field(default="qwen2.5:7b", min_length=1, max_length=200)
    # Retries of an answer that fails validation, the validation error fed back each time.
    model_max_retries: int = Field(default=3, ge=0, le=10)
    # Queued work whose model does not answer waits for it (stage WAITING_FOR_MODEL, the
    # backend's error as lastError) this long, then ends FAILED saying so.
    model_wait_hours: float = Field(default=24.0, gt=0, le=24 * 365)
    # Graph extraction on ingest per document kind, e.g. {"document": "LLM"}; a kind not
    # listed gets NONE. A request's own `extraction` wins.
    extraction_by_kind: dict[str, ExtractionMode] = Field(default_factory=dict)
    # Check-in records of structureKnowledge keep the input text; false keeps its hash only.
    check_in_keep_text: bool = True
    # Session memory: days an entry is kept (kenning.domain.memory.session).
    session_ttl_days: int = Field(default=7, ge=1, le=365)
    # The model router (kenning.router), from KENNING_ROUTER_* variables: mounted at /ollama
    # and /router, and used by the ollama embedder, once it has a backend.
    router: RouterSettings = Field(default_factory=RouterSettings)

    stack_dir: Path = DEFAULT_STACK_DIR
    stack_pg_port: int = Field(default=5433, ge=1, le=65535)
    stack_redis_port: int = Field(default=6380, ge=1, le=65535)
    stack_mirror: str = "http://deb.debian.org/debian"
    stack_suite: str = "trixie"
    # `kenning stack up` reserves huge pages for PostgreSQL's shared memory (stack_hugepages).
    stack_huge_pages: bool = True

    def model_roles(self) -> tuple[ModelRole, ...]:
        """The purposes Kenning calls models for, with the model and setting of each."""
        return (
            ModelRole("structure", self.model_structure, "KENNING_MODEL_STRUCTURE"),
            ModelRole("extract", self.model_extract, "KENNING_MODEL_EXTRACT"),
            ModelRole("vision", self.model_vision, "KENNING_MODEL_VISION"),
        )

    @property
    def log_as_json(self) -> bool:
        """Whether the process logs JSON lines (``log_format``, or the older ``log_json``)."""
        return self.log_format == "json" and self.log_json

    @field_validator("cors_origins", "repository_roots", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [part.strip() for part in text.split(",") if part.strip()]
        return value

    @field_validator("cors_origins")
    @classmethod
    def _origins_are_origins(cls, value: list[str]) -> list[str]:
        for origin in value:
            if origin != "*" and not _ORIGIN.fullmatch(origin):
                raise ValueError(
                    f"{origin!r} is not an origin: use scheme://host[:port] (no path), or *"
                )
        return [origin.rstrip("/") for origin in value]

    @field_validator("repository_roots")
    @classmethod
    def _roots_are_absolute(cls, value: list[str]) -> list[str]:
        # A relative root would be resolved against whatever directory the server starts in.
        for root in value:
            if not root.startswith("/"):
                raise ValueError(f"repository root {root!r} is not an absolute path")
        return value

    def search_fusion_weights(self) -> FusionWeights:
        """HYBRID's fusion as configured (``KENNING_SEARCH_FUSION`` and its weights)."""
        return FusionWeights(
            self.search_rrf_k,
            self.search_vector_weight,
            self.search_keyword_weight,
            method=self.search_fusion,
        )

    @property
    def graphiql_enabled(self) -> bool:
        """Whether GET /graphql serves the GraphiQL page."""
        return self.development if self.graphiql is None else self.graphiql

    @field_validator("graph_name")
    @classmethod
    def _graph_name_is_identifier(cls, value: str) -> str:
        # The graph name is spliced into Cypher and SQL as an identifier, so it is
        # whitelisted here rather than quoted at each use.
        if not value.isascii() or not value.replace("_", "a").isalnum() or value[0].isdigit():
            raise ValueError("graph_name must be an ASCII identifier: letters, digits, _")
        if not 3 <= len(value) <= 63:
            raise ValueError("graph_name must be 3 to 63 characters (an AGE rule)")
        return value.lower()

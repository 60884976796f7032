from datetime import datetime
from typing import Any, Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import Extraction, KnowledgeType, OcrMode, SecretPolicyInput


class ContextFormatInput(BaseModel):
    """How agentContext's text reads (the design's formatter)."""

    section_delimiter: str = Field(alias="sectionDelimiter", default="\n\n")
    "Between sections and blocks (1-20 characters)."
    item_delimiter: str = Field(alias="itemDelimiter", default="\n---\n")
    "Between knowledge items (1-20 characters)."
    include_tags: bool = Field(alias="includeTags", default=True)
    "A `Tags:` line under each knowledge item that has tags."
    include_scores: bool = Field(alias="includeScores", default=False)
    "A `Score:` line under each knowledge item."


class CrawlInput(BaseModel):
    """A site to crawl: where to start, how far to go, what to keep."""

    url: str
    "The start URL (http or https)."
    max_depth: int = Field(alias="maxDepth", default=2)
    "Links away from the start URL, 0..20."
    max_pages: int = Field(alias="maxPages", default=100)
    "URLs visited at most, 1..5000."
    same_site: bool = Field(alias="sameSite", default=True)
    "Stay on the start URL's host and its subdomains."
    include: list[str] = Field(default_factory=lambda: [])
    "Glob patterns a URL must match one of (none: every URL); a pattern starting with `/` matches the path and query, any other the whole URL."
    exclude: list[str] = Field(default_factory=lambda: [])
    "Glob patterns of URLs not to crawl."
    recrawl_after: int | None = Field(alias="recrawlAfter", default=None)
    "Seconds: a page fetched less than this long ago is not fetched again. Null: every stored page is revalidated (If-None-Match / If-Modified-Since)."
    priority: int | None = None
    "3..9, the bulk lane; defaults to 6."
    scope: Optional["ScopeInput"] = None
    "Defaults to the key's scope; may only narrow it."
    connection_id: str | None = Field(alias="connectionId", default=None)
    "The registered connection it comes through: what it stores carries it, and revoking the connection cancels its job and purges what it stored."


class IngestFileInput(BaseModel):
    """What ingestFile does with the file; every field is optional."""

    source_urn: str | None = Field(alias="sourceUrn", default=None)
    "Defaults to `file:<filename>`."
    kind: str | None = None
    'Defaults to "file".'
    tags: list[str] = Field(default_factory=lambda: [])
    "Tags of every chunk."
    ocr: OcrMode = OcrMode.AUTO
    "When to run OCR."
    priority: int | None = None
    "Queue priority 0..9; defaults to 3 (the bulk lane)."
    scope: Optional["ScopeInput"] = None
    "Defaults to the key's scope; may only narrow it."
    observed_at: datetime | None = Field(alias="observedAt", default=None)
    "When the file's content was true (with a time zone; between 1900 and a day from now). Defaults to the file's own date (an e-mail's Date, a PDF's ModDate or CreationDate, an Office file's modified or created), else the time it is stored."
    connection_id: str | None = Field(alias="connectionId", default=None)
    "The registered connection it comes through: what it stores carries it, and revoking the connection cancels its job and purges what it stored."


class IngestInput(BaseModel):
    """One document to index."""

    source_urn: str = Field(alias="sourceUrn")
    kind: str
    content: str
    scope: Optional["ScopeInput"] = None
    "Defaults to the key's scope; may only narrow it."
    main_node_key: str | None = Field(alias="mainNodeKey", default=None)
    knowledge_type: KnowledgeType | None = Field(alias="knowledgeType", default=None)
    info_type: str | None = Field(alias="infoType", default=None)
    tags: list[str] = Field(default_factory=lambda: [])
    metadata: Any | None = None
    source_kind: str | None = Field(alias="sourceKind", default=None)
    connection_id: str | None = Field(alias="connectionId", default=None)
    external_id: str | None = Field(alias="externalId", default=None)
    revision: str | None = None
    relationships: list[str] = Field(default_factory=lambda: [])
    "Relationships in any format: `a|rel|b`, `a->rel->b`, `a -[rel]-> b`."
    priority: int | None = None
    "0 (highest) to 9: the lane of a queued job (0-2 PRIORITY, 3 and up BULK) and the model router's priority for its embeddings. Defaults to 1 for `ingest` (agents waiting for the answer) and to 3, the bulk lane, for `requestIngestion` and `requestIngestions`."
    secret_policy: SecretPolicyInput | None = Field(alias="secretPolicy", default=None)
    "Overrides the server's policy for this request."
    observed_at: datetime | None = Field(alias="observedAt", default=None)
    "When the source says this was true (with a time zone; between 1900 and a day from now). Defaults to the time it is stored. Of two assertions of a relation declared ONE, the later observed one is current."
    supersedes: list[str] | None = None
    "Source URNs at the same scope this one replaces (a new version of a policy under a new URN; at most 100): their edges that this source does not restate end (SUPERSEDED) and their chunks are marked superseded. Naming a source that is not stored at the scope is a ScopeError."
    extraction: Extraction | None = None
    "Graph extraction by the model; defaults to the server's setting for the kind (KENNING_EXTRACTION_BY_KIND), else NONE. A queued job with LLM runs an EXTRACTING stage after STORING; `ingest` returns once the chunks are stored and reports the extraction's job as `extractionJobId`."


class IngestRepositoryInput(BaseModel):
    """A git repository to read: exactly one of `path` (a directory on the server under KENNING_REPOSITORY_ROOTS) and `gitUrl` (http, https, ssh or file URL)."""

    path: str | None = None
    git_url: str | None = Field(alias="gitUrl", default=None)
    branch: str | None = None
    "Defaults to the repository's current branch."
    name: str | None = None
    "The repository's name in keys (`repo:<name>`); defaults to the directory's or the URL's last segment."
    project: str | None = None
    "The project to store under (the scope's projectId)."
    scope: Optional["ScopeInput"] = None
    priority: int | None = None
    "3..9 (the bulk lane); defaults to 5."
    connection_id: str | None = Field(alias="connectionId", default=None)
    "The registered connection it comes through: what it stores carries it, and revoking the connection cancels its job and purges what it stored."


class IngestionIdentityInput(BaseModel):
    """What makes two requests the same work."""

    source_kind: str = Field(alias="sourceKind")
    content_version: str = Field(alias="contentVersion")
    "An eTag, revision or content hash."
    source_id: str | None = Field(alias="sourceId", default=None)
    "Defaults to the input's sourceUrn."


class ScopeInput(BaseModel):
    """Client, project and group ids; "" (the default) means unset."""

    client_id: str = Field(alias="clientId", default="")
    project_id: str = Field(alias="projectId", default="")
    group_id: str = Field(alias="groupId", default="")


CrawlInput.model_rebuild()
IngestFileInput.model_rebuild()
IngestInput.model_rebuild()
IngestRepositoryInput.model_rebuild()

"""The arguments of the structured write tools (``graph_write_tools.py``): pieces, nodes
and edges of ``ingest_graph``, the file of ``load_knowledge`` and the commits of
``ingest_git_commits``, as the GraphQL inputs ``IngestGraphInput`` and
``IngestGitCommitsInput`` name them (snake_case), each with the description an agent reads."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from kenning.domain.ingestion.request import KnowledgeType


class PieceArg(BaseModel):
    """A piece of text; edges cite it as evidence by ``ref``."""

    ref: Annotated[str, Field(description="The piece's name within this request, e.g. 'p1'.")]
    content: Annotated[str, Field(description="The text (Markdown).")]
    knowledge_type: KnowledgeType | None = None
    info_type: Annotated[str | None, Field(description="Routes it in get_context.")] = None
    tags: list[str] = Field(default_factory=list)
    embedding_text: Annotated[
        str | None, Field(description="Embedded instead of the content when given.")
    ] = None


class NodeArg(BaseModel):
    """A vertex with its type and properties."""

    key: Annotated[str, Field(description="'type:id', e.g. 'service:billing'.")]
    type: Annotated[str | None, Field(description="Default: the key's own type.")] = None
    properties: Annotated[dict[str, Any], Field(description="A JSON object.")] = Field(
        default_factory=dict
    )


class EdgeArg(BaseModel):
    """An edge citing pieces of this request as its evidence."""

    from_key: Annotated[str, Field(description="The source node's key.")]
    edge_type: Annotated[str, Field(description="The relation, e.g. 'depends_on'.")]
    to_key: Annotated[str, Field(description="The target node's key.")]
    evidence: Annotated[
        list[str],
        Field(description="Refs of the pieces that state it; none: the source asserts it."),
    ] = []
    properties: Annotated[
        dict[str, Any],
        Field(description="Its own properties as this source gives them (a JSON object)."),
    ] = {}


class FileArg(BaseModel):
    """A file a commit touched."""

    path: str
    change_type: Annotated[str, Field(description="M, A, D or R (then old_path).")]
    old_path: str | None = None


class CommitArg(BaseModel):
    """One commit."""

    hash: Annotated[str, Field(description="The full commit hash.")]
    message: str
    author: str
    date: Annotated[str, Field(description="The commit time, ISO 8601 with a time zone.")]
    branch: str | None = None
    parents: Annotated[list[str], Field(description="Parent hashes.")] = Field(default_factory=list)
    files: list[FileArg] = Field(default_factory=list)
    diff: Annotated[str, Field(description="The unified diff: the edges' evidence.")] = ""


SourceUrn = Annotated[
    str, Field(description="The source, e.g. 'design:checkout'; writing it again replaces it.")
]
ObservedAt = Annotated[
    str | None,
    Field(description="When the source says its pieces were true (ISO 8601); default: now."),
]
Pieces = Annotated[list[PieceArg] | None, Field(description="The texts.")]
Nodes = Annotated[list[NodeArg] | None, Field(description="The vertices.")]
Edges = Annotated[list[EdgeArg] | None, Field(description="The edges.")]
Metadata = Annotated[
    dict[str, Any] | None,
    Field(description="Entity id -> {'type': ..., 'properties': {...}}, each a node."),
]
Kind = Annotated[str, Field(description="What the source is.")]
Priority = Annotated[int, Field(description="0 (highest) to 9 for its embeddings.")]
Knowledge = Annotated[
    dict[str, Any],
    Field(
        description="The whole knowledge file: metadata, pieces and graph, in Kenning's "
        "format or the design's (snake_case: piece_id, entity_id, node_id, label, source_id, "
        "target_id, edge_type, properties.piece_id), recognised per file (the documentation's "
        "memory guide); errors "
        "name it json, as GraphQL does."
    ),
]
Repository = Annotated[str, Field(description="The repository, e.g. 'github:acme/shop'.")]
Commits = Annotated[list[CommitArg], Field(description="The commits, oldest first.")]

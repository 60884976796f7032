"""What the model must answer to ``structureKnowledge``: the knowledge file ``loadKnowledge``
reads (``kenning.domain.ingestion.knowledge_file``), as pydantic models.

The JSON schema of ``StructuredKnowledge`` goes to the model as Ollama's ``format``; its
validators add what a schema cannot say, so ``structured_call`` feeds those errors back:
piece ids are unique, every edge cites at least one piece of the answer by id, node and
edge ends are ``type:id`` keys, relations are edge types Kenning accepts.

Example: ``StructuredKnowledge.model_validate_json(answer).to_file()`` is a dict
``load_knowledge`` takes as it is.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)
from pydantic.alias_generators import to_camel

from kenning.domain.errors import KenningError
from kenning.domain.ingestion.node_keys import normalize_edge_type, parse_key
from kenning.domain.ingestion.request import KnowledgeType

MAX_PIECES: Final = 200
MAX_NODES: Final = 400
MAX_EDGES: Final = 800
MAX_PIECE_CHARS: Final = 8_000

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Identifier = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=100)]
Scalar = str | int | float | bool


def _key(raw: str) -> str:
    try:
        parse_key(raw)
    except KenningError as error:
        raise ValueError(error.message) from None
    return raw


def _relation(raw: str) -> str:
    try:
        normalize_edge_type(raw)
    except KenningError as error:
        raise ValueError(error.message) from None
    return raw


NodeKey = Annotated[str, StringConstraints(strip_whitespace=True), AfterValidator(_key)]
Relation = Annotated[str, StringConstraints(strip_whitespace=True), AfterValidator(_relation)]


class _Item(BaseModel):
    # camelCase as in the knowledge file; unknown fields are errors the model is told about.
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
    )


class Piece(_Item):
    """A self-contained passage of the text; edges cite it by ``id``."""

    id: Identifier = Field(description="Short unique id such as p1, cited by edges.")
    content: Annotated[Text, StringConstraints(max_length=MAX_PIECE_CHARS)]
    knowledge_type: KnowledgeType
    info_type: Identifier | None = Field(
        default=None, description="What it is for: context, instructions, skills, ..."
    )
    tags: list[Identifier] = Field(default_factory=list, max_length=16)
    embedding_text: Text | None = Field(
        default=None, description="A question or phrase this piece answers, for search."
    )


class MetadataEntry(_Item):
    """An entity's type and its properties (plain values only)."""

    type: Identifier
    properties: dict[str, Scalar] = Field(default_factory=dict)


class Node(_Item):
    """An entity of the graph, keyed ``type:id``."""

    id: NodeKey = Field(description="type:id, e.g. service:billing")
    type: Identifier | None = None
    properties: dict[str, Scalar] = Field(default_factory=dict)


class Edge(_Item):
    """A relation between two entities, supported by the pieces it cites."""

    source: NodeKey
    relation: Relation = Field(description="UPPER_SNAKE verb, e.g. OWNS, DEPENDS_ON")
    target: NodeKey
    evidence: list[Identifier] = Field(
        min_length=1, description="ids of the pieces that state this relation"
    )


class Graph(_Item):
    nodes: list[Node] = Field(default_factory=list, max_length=MAX_NODES)
    edges: list[Edge] = Field(default_factory=list, max_length=MAX_EDGES)


class StructuredKnowledge(_Item):
    """The whole answer: metadata, pieces and graph, as a knowledge file."""

    metadata: dict[str, MetadataEntry] = Field(default_factory=dict)
    pieces: list[Piece] = Field(min_length=1, max_length=MAX_PIECES)
    graph: Graph = Field(default_factory=Graph)

    @model_validator(mode="after")
    def _evidence_is_cited_pieces(self) -> StructuredKnowledge:
        ids = [piece.id for piece in self.pieces]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"piece ids must be unique; repeated: {', '.join(repeated)}")
        known = set(ids)
        for index, edge in enumerate(self.graph.edges):
            unknown = [ref for ref in edge.evidence if ref not in known]
            if unknown:
                raise ValueError(
                    f"graph.edges[{index}].evidence cites {unknown[0]!r}, which is not the id "
                    f"of a piece (ids: {', '.join(ids)})"
                )
        return self

    def to_file(self) -> dict[str, Any]:
        """The knowledge file ``load_knowledge`` reads (camelCase, empty optionals left out)."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)

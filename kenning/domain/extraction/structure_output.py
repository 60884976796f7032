"""What the model must answer to ``structureKnowledge``: a knowledge file in the design's
format (003 §Path B), which ``loadKnowledge`` reads
(``kenning.domain.ingestion.knowledge_file``), as pydantic models.

The JSON schema of ``StructuredKnowledge`` goes to the model as Ollama's ``format``; its
validators add what a schema cannot say, so ``structured_call`` feeds those errors back:
piece ids are unique, every edge links a piece of the answer by ``properties.piece_id``,
node and edge ends are ``type:id`` keys, edge types are ones Kenning accepts.

Example: ``StructuredKnowledge.model_validate_json(answer).to_file()`` is a dict
``load_knowledge`` takes as it is.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Final

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)

from kenning.domain.errors import KenningError
from kenning.domain.ingestion.node_keys import normalize_edge_type, parse_key

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


class KnowledgeWord(StrEnum):
    """A knowledge type as the design writes it: a lower-case word."""

    FACT = "fact"
    INSTRUCTION = "instruction"
    PREFERENCE = "preference"
    PROCEDURE = "procedure"
    NOTE = "note"
    EPISODIC = "episodic"


class _Item(BaseModel):
    # snake_case as in the design's knowledge file; unknown fields are errors the model is
    # told about.
    model_config = ConfigDict(extra="forbid", frozen=True)


class Piece(_Item):
    """A self-contained passage of the text; edges cite it by ``piece_id``."""

    piece_id: Identifier = Field(description="Short unique id such as p1, cited by edges.")
    content: Annotated[Text, StringConstraints(max_length=MAX_PIECE_CHARS)]
    knowledge_type: KnowledgeWord
    info_type: Identifier | None = Field(
        default=None, description="What it is for: context, instructions, skills, ..."
    )
    tags: list[Identifier] = Field(default_factory=list, max_length=16)
    entity_id: NodeKey | None = Field(
        default=None, description="The type:id key of the entity the piece is about."
    )
    embedding_text: Text | None = Field(
        default=None, description="A question or phrase this piece answers, for search."
    )


class MetadataEntry(_Item):
    """An entity's type and its properties (plain values only)."""

    entity_type: Identifier
    properties: dict[str, Scalar] = Field(default_factory=dict)


class Node(_Item):
    """An entity of the graph, keyed ``type:id``."""

    node_id: NodeKey = Field(description="type:id, e.g. service:billing")
    node_type: Identifier | None = None
    label: Text | None = Field(default=None, description="Its name as the text says it.")
    properties: dict[str, Scalar] = Field(default_factory=dict)


class EdgeLink(_Item):
    """What an edge says beyond its ends: the piece that states it."""

    piece_id: Identifier = Field(description="id of the piece that states this relation")


class Edge(_Item):
    """A relation between two entities, stated by the piece it links."""

    source_id: NodeKey
    target_id: NodeKey
    edge_type: Relation = Field(description="UPPER_SNAKE verb, e.g. OWNS, DEPENDS_ON")
    properties: EdgeLink


class Graph(_Item):
    nodes: list[Node] = Field(default_factory=list, max_length=MAX_NODES)
    edges: list[Edge] = Field(default_factory=list, max_length=MAX_EDGES)


class StructuredKnowledge(_Item):
    """The whole answer: metadata, pieces and graph, as a knowledge file."""

    metadata: dict[str, MetadataEntry] = Field(default_factory=dict)
    pieces: list[Piece] = Field(min_length=1, max_length=MAX_PIECES)
    graph: Graph = Field(default_factory=Graph)

    @model_validator(mode="after")
    def _edges_link_pieces(self) -> StructuredKnowledge:
        ids = [piece.piece_id for piece in self.pieces]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"piece ids must be unique; repeated: {', '.join(repeated)}")
        for index, edge in enumerate(self.graph.edges):
            if edge.properties.piece_id not in ids:
                raise ValueError(
                    f"graph.edges[{index}].properties.piece_id is "
                    f"{edge.properties.piece_id!r}, which is not the piece_id of a piece "
                    f"(ids: {', '.join(ids)})"
                )
        return self

    def to_file(self) -> dict[str, Any]:
        """The knowledge file ``load_knowledge`` reads (the design's format, empty optionals
        left out)."""
        return self.model_dump(mode="json", exclude_none=True)

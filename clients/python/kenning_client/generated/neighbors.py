from typing import Any

from pydantic import Field

from .base_model import BaseModel


class Neighbors(BaseModel):
    neighbors: "NeighborsNeighbors"


class NeighborsNeighbors(BaseModel):
    truncated: bool
    nodes: list["NeighborsNeighborsNodes"]
    edges: list["NeighborsNeighborsEdges"]


class NeighborsNeighborsNodes(BaseModel):
    key: str
    type_: str = Field(alias="type")
    properties: Any


class NeighborsNeighborsEdges(BaseModel):
    edge_type: str = Field(alias="edgeType")
    from_key: str = Field(alias="fromKey")
    to_key: str = Field(alias="toKey")
    confidence: float


Neighbors.model_rebuild()
NeighborsNeighbors.model_rebuild()

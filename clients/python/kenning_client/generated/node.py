from typing import Any, Optional

from pydantic import Field

from .base_model import BaseModel


class Node(BaseModel):
    node: Optional["NodeNode"]


class NodeNode(BaseModel):
    key: str
    type_: str = Field(alias="type")
    properties: Any
    degree: int


Node.model_rebuild()

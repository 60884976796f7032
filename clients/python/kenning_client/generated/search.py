from typing import Literal, Union

from pydantic import Field

from .base_model import BaseModel
from .fragments import ErrorFields


class Search(BaseModel):
    search: Union[
        "SearchSearchSearchSuccess",
        "SearchSearchValidationError",
        "SearchSearchScopeError",
    ] = Field(discriminator="typename__")


class SearchSearchSearchSuccess(BaseModel):
    typename__: Literal["SearchSuccess"] = Field(alias="__typename")
    hits: list["SearchSearchSearchSuccessHits"]


class SearchSearchSearchSuccessHits(BaseModel):
    score: float
    source_urn: str = Field(alias="sourceUrn")
    kind: str
    graph_refs: list[str] = Field(alias="graphRefs")
    chunk: "SearchSearchSearchSuccessHitsChunk"


class SearchSearchSearchSuccessHitsChunk(BaseModel):
    id: str
    content: str
    ordinal: int
    tags: list[str]


class SearchSearchValidationError(ErrorFields):
    typename__: Literal["ValidationError"] = Field(alias="__typename")


class SearchSearchScopeError(ErrorFields):
    typename__: Literal["ScopeError"] = Field(alias="__typename")


Search.model_rebuild()
SearchSearchSearchSuccess.model_rebuild()
SearchSearchSearchSuccessHits.model_rebuild()

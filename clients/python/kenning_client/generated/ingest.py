from typing import Literal, Union

from pydantic import Field

from .base_model import BaseModel
from .enums import IngestStatus
from .fragments import ErrorFields


class Ingest(BaseModel):
    ingest: Union[
        "IngestIngestIngestSuccess",
        "IngestIngestValidationError",
        "IngestIngestSensitiveContentError",
        "IngestIngestScopeError",
        "IngestIngestConnectionRevokedError",
        "IngestIngestErasedSubject",
        "IngestIngestModelUnavailable",
    ] = Field(discriminator="typename__")


class IngestIngestIngestSuccess(BaseModel):
    typename__: Literal["IngestSuccess"] = Field(alias="__typename")
    status: IngestStatus
    content_hash: str = Field(alias="contentHash")
    nodes: list[str]
    chunks: list["IngestIngestIngestSuccessChunks"]


class IngestIngestIngestSuccessChunks(BaseModel):
    id: str


class IngestIngestValidationError(ErrorFields):
    typename__: Literal["ValidationError"] = Field(alias="__typename")


class IngestIngestSensitiveContentError(ErrorFields):
    typename__: Literal["SensitiveContentError"] = Field(alias="__typename")


class IngestIngestScopeError(ErrorFields):
    typename__: Literal["ScopeError"] = Field(alias="__typename")


class IngestIngestConnectionRevokedError(ErrorFields):
    typename__: Literal["ConnectionRevokedError"] = Field(alias="__typename")


class IngestIngestErasedSubject(ErrorFields):
    typename__: Literal["ErasedSubject"] = Field(alias="__typename")


class IngestIngestModelUnavailable(ErrorFields):
    typename__: Literal["ModelUnavailable"] = Field(alias="__typename")


Ingest.model_rebuild()
IngestIngestIngestSuccess.model_rebuild()

from typing import Literal, Union

from pydantic import Field

from .base_model import BaseModel
from .enums import FileProblem, IngestionHandleStatus
from .fragments import ErrorFields


class IngestFile(BaseModel):
    ingest_file: Union[
        "IngestFileIngestFileIngestFileSuccess",
        "IngestFileIngestFileFileRejected",
        "IngestFileIngestFileValidationError",
        "IngestFileIngestFileSensitiveContentError",
        "IngestFileIngestFileScopeError",
        "IngestFileIngestFileConnectionRevokedError",
    ] = Field(alias="ingestFile", discriminator="typename__")


class IngestFileIngestFileIngestFileSuccess(BaseModel):
    typename__: Literal["IngestFileSuccess"] = Field(alias="__typename")
    job: "IngestFileIngestFileIngestFileSuccessJob"
    file: "IngestFileIngestFileIngestFileSuccessFile"


class IngestFileIngestFileIngestFileSuccessJob(BaseModel):
    job_id: str = Field(alias="jobId")
    status: IngestionHandleStatus


class IngestFileIngestFileIngestFileSuccessFile(BaseModel):
    id: str
    media_type: str = Field(alias="mediaType")
    source_urn: str = Field(alias="sourceUrn")
    size: int


class IngestFileIngestFileFileRejected(ErrorFields):
    typename__: Literal["FileRejected"] = Field(alias="__typename")
    problem: FileProblem
    detected: str | None


class IngestFileIngestFileValidationError(ErrorFields):
    typename__: Literal["ValidationError"] = Field(alias="__typename")


class IngestFileIngestFileSensitiveContentError(ErrorFields):
    typename__: Literal["SensitiveContentError"] = Field(alias="__typename")


class IngestFileIngestFileScopeError(ErrorFields):
    typename__: Literal["ScopeError"] = Field(alias="__typename")


class IngestFileIngestFileConnectionRevokedError(ErrorFields):
    typename__: Literal["ConnectionRevokedError"] = Field(alias="__typename")


IngestFile.model_rebuild()
IngestFileIngestFileIngestFileSuccess.model_rebuild()

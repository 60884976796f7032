from typing import Literal, Union

from pydantic import Field

from .base_model import BaseModel
from .enums import IngestionHandleStatus
from .fragments import ErrorFields


class IngestRepository(BaseModel):
    ingest_repository: Union[
        "IngestRepositoryIngestRepositoryIngestionHandle",
        "IngestRepositoryIngestRepositoryValidationError",
        "IngestRepositoryIngestRepositoryScopeError",
        "IngestRepositoryIngestRepositoryNotFoundError",
        "IngestRepositoryIngestRepositoryConnectionRevokedError",
    ] = Field(alias="ingestRepository", discriminator="typename__")


class IngestRepositoryIngestRepositoryIngestionHandle(BaseModel):
    typename__: Literal["IngestionHandle"] = Field(alias="__typename")
    job_id: str = Field(alias="jobId")
    status: IngestionHandleStatus


class IngestRepositoryIngestRepositoryValidationError(ErrorFields):
    typename__: Literal["ValidationError"] = Field(alias="__typename")


class IngestRepositoryIngestRepositoryScopeError(ErrorFields):
    typename__: Literal["ScopeError"] = Field(alias="__typename")


class IngestRepositoryIngestRepositoryNotFoundError(ErrorFields):
    typename__: Literal["NotFoundError"] = Field(alias="__typename")


class IngestRepositoryIngestRepositoryConnectionRevokedError(ErrorFields):
    typename__: Literal["ConnectionRevokedError"] = Field(alias="__typename")


IngestRepository.model_rebuild()

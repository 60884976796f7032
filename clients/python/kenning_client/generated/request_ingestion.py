from typing import Literal, Union

from pydantic import Field

from .base_model import BaseModel
from .enums import IngestionHandleStatus
from .fragments import ErrorFields


class RequestIngestion(BaseModel):
    request_ingestion: Union[
        "RequestIngestionRequestIngestionIngestionHandle",
        "RequestIngestionRequestIngestionValidationError",
        "RequestIngestionRequestIngestionSensitiveContentError",
        "RequestIngestionRequestIngestionScopeError",
        "RequestIngestionRequestIngestionConnectionRevokedError",
        "RequestIngestionRequestIngestionErasedSubject",
        "RequestIngestionRequestIngestionModelUnavailable",
    ] = Field(alias="requestIngestion", discriminator="typename__")


class RequestIngestionRequestIngestionIngestionHandle(BaseModel):
    typename__: Literal["IngestionHandle"] = Field(alias="__typename")
    job_id: str = Field(alias="jobId")
    status: IngestionHandleStatus
    position: int | None


class RequestIngestionRequestIngestionValidationError(ErrorFields):
    typename__: Literal["ValidationError"] = Field(alias="__typename")


class RequestIngestionRequestIngestionSensitiveContentError(ErrorFields):
    typename__: Literal["SensitiveContentError"] = Field(alias="__typename")


class RequestIngestionRequestIngestionScopeError(ErrorFields):
    typename__: Literal["ScopeError"] = Field(alias="__typename")


class RequestIngestionRequestIngestionConnectionRevokedError(ErrorFields):
    typename__: Literal["ConnectionRevokedError"] = Field(alias="__typename")


class RequestIngestionRequestIngestionErasedSubject(ErrorFields):
    typename__: Literal["ErasedSubject"] = Field(alias="__typename")


class RequestIngestionRequestIngestionModelUnavailable(ErrorFields):
    typename__: Literal["ModelUnavailable"] = Field(alias="__typename")


RequestIngestion.model_rebuild()

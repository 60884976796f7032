from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .enums import ErrorCode, JobStage, JobStatus


class ErrorFields(BaseModel):
    code: ErrorCode
    message: str
    field: str | None


class JobFields(BaseModel):
    id: str
    status: JobStatus
    stage: JobStage | None
    position: int | None
    last_error: str | None = Field(alias="lastError")
    source_urn: str | None = Field(alias="sourceUrn")
    progress: Optional["JobFieldsProgress"]


class JobFieldsProgress(BaseModel):
    fetched: int
    unchanged: int
    skipped: int
    failed: int
    queued: int
    stored: int


ErrorFields.model_rebuild()
JobFields.model_rebuild()

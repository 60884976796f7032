from datetime import datetime
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
    repository_progress: Optional["JobFieldsRepositoryProgress"] = Field(alias="repositoryProgress")
    next_attempt_at: datetime | None = Field(alias="nextAttemptAt")
    waiting_for_model_since: datetime | None = Field(alias="waitingForModelSince")


class JobFieldsProgress(BaseModel):
    fetched: int
    unchanged: int
    skipped: int
    failed: int
    queued: int
    stored: int


class JobFieldsRepositoryProgress(BaseModel):
    planned: int
    done: int
    refused: int


ErrorFields.model_rebuild()
JobFields.model_rebuild()

from datetime import datetime

from pydantic import Field

from .base_model import BaseModel
from .enums import JobStage, JobStatus, QueueLane


class QueueStatus(BaseModel):
    queue_status: "QueueStatusQueueStatus" = Field(alias="queueStatus")


class QueueStatusQueueStatus(BaseModel):
    at: datetime
    workers_alive: int | None = Field(alias="workersAlive")
    degraded: bool
    resynced: bool
    counts: list["QueueStatusQueueStatusCounts"]
    queued: list["QueueStatusQueueStatusQueued"]
    running: list["QueueStatusQueueStatusRunning"]


class QueueStatusQueueStatusCounts(BaseModel):
    lane: QueueLane
    status: JobStatus
    count: int


class QueueStatusQueueStatusQueued(BaseModel):
    id: str
    status: JobStatus
    position: int | None


class QueueStatusQueueStatusRunning(BaseModel):
    id: str
    status: JobStatus
    stage: JobStage | None


QueueStatus.model_rebuild()
QueueStatusQueueStatus.model_rebuild()

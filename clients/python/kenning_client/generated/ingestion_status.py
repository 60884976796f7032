from typing import Optional

from pydantic import Field

from .base_model import BaseModel
from .fragments import JobFields


class IngestionStatus(BaseModel):
    ingestion_status: Optional["IngestionStatusIngestionStatus"] = Field(alias="ingestionStatus")


IngestionStatusIngestionStatus = JobFields
IngestionStatus.model_rebuild()

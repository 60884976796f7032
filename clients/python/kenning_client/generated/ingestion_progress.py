from pydantic import Field

from .base_model import BaseModel
from .fragments import JobFields


class IngestionProgress(BaseModel):
    ingestion_progress: "IngestionProgressIngestionProgress" = Field(alias="ingestionProgress")


IngestionProgressIngestionProgress = JobFields
IngestionProgress.model_rebuild()

from typing import Literal, Union

from pydantic import Field

from .base_model import BaseModel
from .enums import IngestionHandleStatus
from .fragments import ErrorFields


class Crawl(BaseModel):
    crawl: Union[
        "CrawlCrawlIngestionHandle",
        "CrawlCrawlValidationError",
        "CrawlCrawlScopeError",
        "CrawlCrawlConnectionRevokedError",
    ] = Field(discriminator="typename__")


class CrawlCrawlIngestionHandle(BaseModel):
    typename__: Literal["IngestionHandle"] = Field(alias="__typename")
    job_id: str = Field(alias="jobId")
    status: IngestionHandleStatus


class CrawlCrawlValidationError(ErrorFields):
    typename__: Literal["ValidationError"] = Field(alias="__typename")


class CrawlCrawlScopeError(ErrorFields):
    typename__: Literal["ScopeError"] = Field(alias="__typename")


class CrawlCrawlConnectionRevokedError(ErrorFields):
    typename__: Literal["ConnectionRevokedError"] = Field(alias="__typename")


Crawl.model_rebuild()

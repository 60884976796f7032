from typing import Literal, Union

from pydantic import Field

from .base_model import BaseModel
from .enums import IngestStatus, KnowledgeCategory
from .fragments import ErrorFields


class StoreKnowledge(BaseModel):
    store_knowledge: Union[
        "StoreKnowledgeStoreKnowledgeStoreKnowledgeSuccess",
        "StoreKnowledgeStoreKnowledgeValidationError",
        "StoreKnowledgeStoreKnowledgeSensitiveContentError",
        "StoreKnowledgeStoreKnowledgeScopeError",
        "StoreKnowledgeStoreKnowledgeErasedSubject",
    ] = Field(alias="storeKnowledge", discriminator="typename__")


class StoreKnowledgeStoreKnowledgeStoreKnowledgeSuccess(BaseModel):
    typename__: Literal["StoreKnowledgeSuccess"] = Field(alias="__typename")
    source_urn: str = Field(alias="sourceUrn")
    status: IngestStatus
    subject: str
    category: KnowledgeCategory


class StoreKnowledgeStoreKnowledgeValidationError(ErrorFields):
    typename__: Literal["ValidationError"] = Field(alias="__typename")


class StoreKnowledgeStoreKnowledgeSensitiveContentError(ErrorFields):
    typename__: Literal["SensitiveContentError"] = Field(alias="__typename")


class StoreKnowledgeStoreKnowledgeScopeError(ErrorFields):
    typename__: Literal["ScopeError"] = Field(alias="__typename")


class StoreKnowledgeStoreKnowledgeErasedSubject(ErrorFields):
    typename__: Literal["ErasedSubject"] = Field(alias="__typename")


StoreKnowledge.model_rebuild()

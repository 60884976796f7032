from pydantic import Field

from .base_model import BaseModel


class UserContext(BaseModel):
    user_context: "UserContextUserContext" = Field(alias="userContext")


class UserContextUserContext(BaseModel):
    markdown: str


UserContext.model_rebuild()

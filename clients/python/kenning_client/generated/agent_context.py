from typing import Literal, Union

from pydantic import Field

from .base_model import BaseModel
from .fragments import ErrorFields


class AgentContext(BaseModel):
    agent_context: Union[
        "AgentContextAgentContextAgentContext",
        "AgentContextAgentContextValidationError",
        "AgentContextAgentContextScopeError",
    ] = Field(alias="agentContext", discriminator="typename__")


class AgentContextAgentContextAgentContext(BaseModel):
    typename__: Literal["AgentContext"] = Field(alias="__typename")
    text: str


class AgentContextAgentContextValidationError(ErrorFields):
    typename__: Literal["ValidationError"] = Field(alias="__typename")


class AgentContextAgentContextScopeError(ErrorFields):
    typename__: Literal["ScopeError"] = Field(alias="__typename")


AgentContext.model_rebuild()

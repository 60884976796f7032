"""GraphQL run in process against a real runtime, as a chosen principal."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.types import ExecutionResult

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.graphql.context import Context
from kenning.runtime import Runtime
from kenning.schema.build import build_schema

ROOT = Principal(key_id="test-root", scope=Scope(), role=Role.ADMIN)


class Api:
    """Runs GraphQL operations in process against a real runtime, as ``principal``
    (a global admin unless told otherwise)."""

    def __init__(self, runtime: Runtime, principal: Principal = ROOT) -> None:
        self.runtime = runtime
        self.principal = principal
        self.schema: strawberry.Schema = build_schema()

    def as_(self, principal: Principal) -> Api:
        """The same API called by another principal."""
        return Api(self.runtime, principal)

    async def execute(self, query: str, **variables: Any) -> ExecutionResult:
        """The whole result, errors included (as a client receives them)."""
        context = Context(runtime=self.runtime, principal=self.principal)
        return await self.schema.execute(query, variable_values=variables, context_value=context)

    async def __call__(self, query: str, **variables: Any) -> dict[str, Any]:
        result = await self.execute(query, **variables)
        assert result.errors is None, result.errors
        assert result.data is not None
        return result.data

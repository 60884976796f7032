"""An operation whose key was revoked since its websocket authenticated is refused."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.graphql.context import Context
from kenning.runtime import Runtime
from kenning.schema.build import build_schema


def context(revoked: set[str]) -> Context:
    keys = SimpleNamespace(is_revoked=lambda key_id: key_id in revoked)
    runtime = cast(Runtime, SimpleNamespace(api_keys=keys))
    return Context(runtime=runtime, principal=Principal("k1", Scope("acme"), Role.UI))


async def test_a_revoked_key_runs_nothing_more() -> None:
    schema = build_schema()
    assert (await schema.execute("{ __typename }", context_value=context(set()))).errors is None
    result = await schema.execute("{ __typename }", context_value=context({"k1"}))
    assert result.data is None and result.errors
    [error] = result.errors
    assert error.extensions is not None and error.extensions["code"] == "FORBIDDEN"
    assert "revoked" in error.message

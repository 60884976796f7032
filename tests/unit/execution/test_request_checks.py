"""The executor's request checks, before any resolver: a revoked key is refused first, then
each variable and literal holding text PostgreSQL cannot store is named."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from graphql import parse

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.errors import ScopeError
from kenning.graphql.context import Context
from kenning.graphql.execution.request_checks import request_refusals
from kenning.runtime import Runtime

CLEAN = parse('query($q: String!) { search(query: "fine") { __typename } }')
WITH_NUL = parse('query($q: String!) { search(query: "a\\u0000b") { __typename } }')


def caller(revoked: set[str]) -> Context:
    keys = SimpleNamespace(is_revoked=lambda key_id: key_id in revoked)
    runtime = cast(Runtime, SimpleNamespace(api_keys=keys))
    return Context(runtime=runtime, principal=Principal("k1", Scope("acme"), Role.UI))


def test_a_clean_request_runs() -> None:
    assert request_refusals(caller(set()), CLEAN, {"q": "ok", "n": [1, "two"]}) == []
    assert request_refusals(None, CLEAN, None) == []


def test_each_unstorable_variable_and_literal_is_named() -> None:
    variables = {"input": {"content": "x\x00"}, "q": "fine", "tag": "\ud800"}
    errors = request_refusals(caller(set()), WITH_NUL, variables)
    named = sorted((error.extensions or {})["field"] for error in errors)
    assert named == ["input.content", "query", "tag"]
    assert all("cannot be stored" in error.message for error in errors)


def test_a_revoked_key_is_refused_before_anything_else() -> None:
    [error] = request_refusals(caller({"k1"}), WITH_NUL, {"q": "\x00"})
    assert "revoked" in error.message
    assert isinstance(error.original_error, ScopeError)

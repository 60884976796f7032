"""Who shares a subscription cohort (same document, name, variables and visibility, never just
the same key), and the websocket messages built around a shared result's JSON."""

from __future__ import annotations

import json
from typing import cast

from graphql import parse

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.resolvers.context import Context
from kenning.runtime import Runtime
from kenning.schema.build import build_schema
from kenning.schema.cohort_view import CohortGraphQL
from kenning.schema.cohorts import cohort_key
from kenning.storage.db.health import unavailable_part

DOCUMENT = parse("subscription S($first: Int!) { queueStatus(first: $first) { degraded } }")
OTHER = parse("subscription S($first: Int!) { queueStatus(first: $first) { resynced } }")


def caller(client: str, key: str = "k", role: Role = Role.AGENT, project: str = "") -> Context:
    principal = Principal(key_id=key, scope=Scope(client, project), role=role)
    return Context(runtime=cast(Runtime, object()), principal=principal)


def key(context: object, document: object = DOCUMENT, first: int = 5, name: str = "S") -> object:
    return cohort_key(document, name, {"first": first}, context)  # type: ignore[arg-type]


def test_keys_of_one_visibility_share_a_cohort() -> None:
    assert key(caller("acme", "key-1")) == key(caller("acme", "key-2"))


def test_another_visibility_never_shares() -> None:
    acme = key(caller("acme"))
    assert acme != key(caller("globex"))
    assert acme != key(caller("acme", project="billing"))
    assert acme != key(caller("acme", role=Role.ADMIN))


def test_another_selection_name_or_variables_never_share() -> None:
    acme = caller("acme")
    assert key(acme) != key(acme, OTHER)
    assert key(acme) != key(acme, name="T")
    assert key(acme) != key(acme, first=6)


def test_a_caller_without_a_principal_has_no_cohort() -> None:
    assert key(Context(runtime=cast(Runtime, object()))) is None
    assert key(None) is None


def test_messages_around_shared_data_are_the_plain_encoding() -> None:
    view = CohortGraphQL({}, unavailable_part, schema=build_schema())
    data = {"queueStatus": {"changes": [{"jobId": 'j-\u00e9"', "status": "QUEUED"}]}}
    for op_id in ("1", 'a"b'):
        message = {"id": op_id, "type": "next", "payload": {"data": data}}
        assert json.loads(view.encode_json(message)) == message
    with_errors = {"id": "2", "type": "next", "payload": {"data": data, "errors": [{"m": 1}]}}
    assert json.loads(view.encode_json(with_errors)) == with_errors
    assert json.loads(view.encode_json({"type": "pong"})) == {"type": "pong"}

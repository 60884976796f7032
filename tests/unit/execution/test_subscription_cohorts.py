"""Who shares a subscription cohort (same document, name, variables and visibility, never just
the same key), the websocket messages built around a shared result's JSON, and a member writing
its own frame."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any, cast

from graphql import ExecutionResult, GraphQLError, parse

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.graphql.context import Context
from kenning.graphql.subscriptions.cohorts import CohortSharing, cohort_key
from kenning.graphql.subscriptions.fan_out import Member, direct_delivery, next_frame
from kenning.graphql.subscriptions.sharing import EncodedPayloads, SharedResults, SubscriptionFanOut
from kenning.graphql.view import CohortGraphQL
from kenning.runtime import Runtime
from kenning.schema.build import build_schema
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
    view = CohortGraphQL({}, unavailable_part, fan_out=SubscriptionFanOut(), schema=build_schema())
    data = {"queueStatus": {"changes": [{"jobId": 'j-\u00e9"', "status": "QUEUED"}]}}
    for op_id in ("1", 'a"b'):
        message = {"id": op_id, "type": "next", "payload": {"data": data}}
        assert json.loads(view.encode_json(message)) == message
    with_errors = {"id": "2", "type": "next", "payload": {"data": data, "errors": [{"m": 1}]}}
    assert json.loads(view.encode_json(with_errors)) == with_errors
    assert json.loads(view.encode_json({"type": "pong"})) == {"type": "pong"}


def test_a_direct_frame_is_strawberrys_encoding_of_the_next_message() -> None:
    data = {"queueStatus": {"changes": [{"jobId": 'j-\u00e9"\n', "status": "QUEUED"}]}}
    encoded_payloads = EncodedPayloads()
    for op_id in ("1", 'a"b\u00e9', "\u2028"):
        message = {"id": op_id, "type": "next", "payload": {"data": data}}
        plain = json.dumps(message, separators=(",", ":"))  # Strawberry's encode_json
        assert next_frame(op_id, encoded_payloads(data)) == plain


class FakeSocket:
    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(text)


class FakeExecutor:
    """A subscription's executor whose every event executes to ``result``."""

    def __init__(self, result: ExecutionResult) -> None:
        self.result = result
        self.sharing: CohortSharing | None = CohortSharing(("cohort",), SharedResults())

    def build_per_event_executor(self, event: object) -> FakeExecutor:
        return self

    def execute_operation(self, serially: bool | None = None) -> ExecutionResult:
        return self.result

    def is_awaitable(self, value: object) -> bool:
        return False


def member_with(result: ExecutionResult) -> tuple[Member, FakeSocket, Any]:
    socket = FakeSocket()
    handler = SimpleNamespace(websocket=SimpleNamespace(ws=socket), operations={})
    operation = SimpleNamespace(id="op-1", completed=False)
    handler.operations["op-1"] = operation
    member = Member(cast(Any, handler), cast(Any, operation), SubscriptionFanOut())
    member.adopt(cast(Any, FakeExecutor(result)))
    return member, socket, handler


async def test_a_member_writes_its_next_frame_until_the_operation_completes() -> None:
    member, socket, handler = member_with(ExecutionResult({"queueStatus": {"resynced": True}}))
    assert await member.deliver(object())
    assert socket.sent == [
        '{"id":"op-1","type":"next","payload":{"data":{"queueStatus":{"resynced":true}}}}'
    ]
    handler.operations.clear()  # "complete" received: the operation is forgotten
    assert await member.deliver(object())  # consumed, and nothing more is written
    assert len(socket.sent) == 1


async def test_a_result_with_errors_is_left_to_strawberrys_path() -> None:
    member, socket, _ = member_with(ExecutionResult(None, [GraphQLError("boom")]))
    assert not await member.deliver(object())
    assert socket.sent == []


async def test_without_a_member_or_a_cohort_events_are_yielded() -> None:
    assert direct_delivery() is None  # not inside a graphql-transport-ws operation
    member, socket, _ = member_with(ExecutionResult({"x": 1}))
    executor = member.executor
    assert isinstance(executor, FakeExecutor)
    executor.sharing = None  # a caller without a principal has no cohort
    assert not await member.deliver(object())
    assert socket.sent == []

"""Cohort fan-out over graphql-transport-ws: a shared result is written to each member directly.

Strawberry sends every subscription event through its per-event machinery (extension hooks,
result handling, message building), about 100 µs per subscriber; with a cohort sharing one
result (``cohorts.py``) that machinery was most of the server's work. So each operation of a
``CohortTransportWSHandler`` has a ``Member``, which a subscription's resolver may ask to
deliver an event itself (``direct_delivery()``): the member's executor runs the event (once
per cohort, through the app's ``SharedResults``), the ``{"data": ...}`` payload is encoded
once per result (the app's ``EncodedPayloads``), and the member writes
``{"id":<its id>,"type":"next","payload":<shared>}``.

Nothing observable changes: the frame is byte for byte what Strawberry's path sends; it is
written by the operation's own task, so messages keep their order and stop when the
operation completes or its socket closes; a result with errors is never sent this way (the
resolver yields the event, and the slow path executes and reports it as before). The legacy
graphql-ws protocol has no members and keeps the slow path.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from graphql import ExecutionResult
from starlette.websockets import WebSocketDisconnect
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
    Operation,
)

from kenning.graphql.context import Context
from kenning.graphql.execution.executor import subscription_built
from kenning.graphql.subscriptions.cohorts import CohortSharing
from kenning.graphql.subscriptions.sharing import SubscriptionFanOut

Deliver = Callable[[object], Awaitable[bool]]


class EventExecutor(Protocol):
    """What a member needs of its subscription's executor (``KenningExecutor``)."""

    @property
    def sharing(self) -> CohortSharing | None: ...

    def build_per_event_executor(self, payload: Any) -> Any: ...

    def is_awaitable(self, value: Any) -> bool: ...


def next_frame(operation_id: object, payload_json: str, kind: object = "next") -> str:
    """The message (``next``; ``data`` in graphql-ws) of ``operation_id`` around a payload."""
    head = json.dumps({"id": operation_id, "type": kind}, separators=(",", ":"))
    return f'{head[:-1]},"payload":{payload_json}}}'


class Member:
    """One subscription operation on one socket, able to write a shared result itself."""

    def __init__(
        self,
        handler: BaseGraphQLTransportWSHandler[Context, None],
        op: Operation[Context, None],
        fan_out: SubscriptionFanOut,
    ) -> None:
        self.handler, self.operation, self.fan_out = handler, op, fan_out
        self.executor: EventExecutor | None = None  # set when the subscription is built
        self.sent = 0
        self._head = next_frame(op.id, "")[:-1]  # '{"id":…,"type":"next","payload":'

    def adopt(self, executor: EventExecutor) -> None:
        """Called as the subscription is built: events run through ``executor``."""
        if self.executor is None:
            self.executor = executor

    def _live(self) -> bool:
        op = self.operation
        return not op.completed and self.handler.operations.get(op.id) is op

    async def deliver(self, event: object) -> bool:
        """Send ``event``'s result as a ``next`` message; False: the caller must yield it."""
        executor = self.executor
        sharing = None if executor is None else executor.sharing
        if executor is None or sharing is None:
            return False
        result: Any = sharing.shared(event)
        if result is None:
            result = executor.build_per_event_executor(event).execute_operation(False)
        if isinstance(result, asyncio.Future):  # another member's execution, in flight
            result = await asyncio.shield(result)
        elif executor.is_awaitable(result):
            result = await result
        if not isinstance(result, ExecutionResult) or result.errors or result.extensions:
            return False
        if not self._live():
            return True  # completed meanwhile: nothing more is sent, as on the slow path
        frame = f"{self._head}{self.fan_out.encoded_payloads(result.data)}}}"
        # Strawberry's ASGI adapter keeps Starlette's socket as ``ws``.
        socket = getattr(self.handler.websocket, "ws", None)
        send = getattr(socket, "send_text", None)
        if send is None:
            return False
        try:
            await send(frame)
        except (WebSocketDisconnect, RuntimeError, OSError):
            return True  # the socket is closing; the handler cancels this operation
        self.sent += 1
        self.fan_out.direct_frames.sent += 1
        return True


# The running operation's member. A ContextVar, because the resolver asks for it with no
# argument (``direct_delivery()``) and the operation's task is all that tells it apart.
_member: contextvars.ContextVar[Member | None] = contextvars.ContextVar(
    "kenning_fan_out_member", default=None
)


def direct_delivery() -> Deliver | None:
    """How the running subscription may deliver an event itself; ``None``: yield it.

    Example: ``if deliver is not None and await deliver(update): continue``.
    """
    member = _member.get()
    return None if member is None else member.deliver


class CohortTransportWSHandler(BaseGraphQLTransportWSHandler[Context, None]):
    """graphql-transport-ws handler whose operations are cohort ``Member``s."""

    async def run_operation(self, operation: Operation[Context, None]) -> None:
        fan_out = self.context.fan_out
        if fan_out is not None:
            # The operation's own task: the variables are seen by its resolver and executor
            # only.
            member = Member(self, operation, fan_out)
            _member.set(member)
            subscription_built.set(member.adopt)
        await super().run_operation(operation)

"""``/graphql`` over HTTP and websockets: who is calling, and refusals a client can parse.

Every refusal before the schema runs is a GraphQL-shaped JSON body (``errors`` with
``extensions.code`` and ``extensions.requestId``): 401 ``UNAUTHENTICATED`` with
``WWW-Authenticate: Bearer``, 400 ``BAD_REQUEST`` for a body that is not JSON (or nests
deeper than Python's parser goes) or a malformed multipart upload
(``graphql/http/upload_request.py``), 413 ``PAYLOAD_TOO_LARGE`` over
``KENNING_MAX_REQUEST_BYTES``, 503 ``SERVICE_UNAVAILABLE`` naming the part that is down. A
websocket message nested that deep closes the graphql-transport-ws connection with 4400. A
client that hangs up before its body is read is logged at INFO, not as a failure.

``CohortGraphQL``, the view ``create_app`` serves, holds what the app's subscribers share
(``subscriptions/sharing.py``: ``SubscriptionFanOut``, one per app) and puts it in every
context, where the executor finds it. It encodes a result shared by a subscription cohort
only once: every member of a cohort (``subscriptions/cohorts.py``) is handed the very same
``data`` object, and the websocket message around it differs only by the operation id,
so the data's JSON is built once and each member's message is assembled around it. Over
graphql-transport-ws, members that keep up skip Strawberry's per-event path altogether
(``subscriptions/fan_out.py``: ``CohortTransportWSHandler``) and write the same message
themselves.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import Any

from cross_web import AsyncHTTPRequestAdapter, HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.websockets import WebSocket
from strawberry.exceptions import ConnectionRejectionError
from strawberry.http import GraphQLRequestData
from strawberry.types import ExecutionResult
from strawberry.types.unset import UNSET, UnsetType

from kenning.domain.access.principal import ANONYMOUS, Principal, Role, bearer_key
from kenning.domain.off_loop import off_loop
from kenning.graphql.context import Context
from kenning.graphql.execution.error_shaping import MASKED_MESSAGE
from kenning.graphql.http.upload_guard import body_limit
from kenning.graphql.http.upload_request import UploadRequestAdapter, operations_with_files
from kenning.graphql.subscriptions.fan_out import CohortTransportWSHandler, next_frame
from kenning.graphql.subscriptions.sharing import SubscriptionFanOut
from kenning.http_errors import REALM, error_response, unavailable_response
from kenning.key_sockets import KeySockets
from kenning.logs import log_event
from kenning.operation_type import SUBSCRIPTIONS_OVER_WS, subscribes
from kenning.request_body import BodyTooLarge, JsonBodyView, limited
from kenning.runtime import Runtime

logger = logging.getLogger("kenning.http")


def _body_limit(request: Request, runtime: Runtime) -> int:
    settings = runtime.settings
    return body_limit(request, settings.max_request_bytes, settings.max_file_bytes)


class Refused(Exception):
    """A request refused before the schema runs; ``response`` says why."""

    def __init__(self, response: Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def _unauthorized(header: str | None) -> Refused:
    if bearer_key(header) is None:
        message = "no API key: send Authorization: Bearer <API key>"
        challenge = REALM
    else:
        message = "the API key is not valid (unknown or revoked)"
        challenge = f'{REALM}, error="invalid_token"'
    return Refused(error_response(401, message, headers={"WWW-Authenticate": challenge}))


class KenningGraphQL(JsonBodyView):
    """Strawberry's ASGI view with Kenning's typed context and refusals."""

    # Multipart bodies read within Kenning's limits, malformed ones refused with a 400.
    request_adapter_class = UploadRequestAdapter
    # What the app's subscribers share, put in every context; None: nothing is shared.
    fan_out: SubscriptionFanOut | None = None

    def __init__(
        self,
        holder: dict[str, Runtime],
        unavailable: Callable[[BaseException], str | None],
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self._holder = holder
        self._unavailable = unavailable
        # Open websockets by key id, closed when their key is revoked (in any process).
        self._sockets = KeySockets()

    def _runtime(self) -> Runtime:
        runtime = self._holder.get("runtime")
        if runtime is None:
            raise Refused(error_response(503, "the server is starting", part="server"))
        return runtime

    async def _authenticate(self, runtime: Runtime, header: str | None) -> Principal | None:
        key = bearer_key(header)
        if key is None:
            return ANONYMOUS if runtime.settings.allow_anonymous else None
        try:
            return await runtime.api_keys.authenticate(key)
        except Exception as error:
            part = self._unavailable(error)
            if part is None:
                raise
            log_event(logger, "auth.unavailable", logging.WARNING, part=part)
            raise Refused(unavailable_response(part)) from error

    async def get_context(
        self, request: Request | WebSocket, response: Response | WebSocket
    ) -> Context:
        runtime = self._runtime()
        header = request.headers.get("authorization")
        try:
            caller = await self._authenticate(runtime, header)
        except Refused:
            if isinstance(request, Request):
                raise
            caller = None  # a websocket is refused by its connection_init, in protocol
        if caller is None and isinstance(request, Request):
            raise _unauthorized(header)
        # A websocket may still authenticate in its connection_init payload.
        return Context(
            runtime=runtime,
            request=request,
            response=response if isinstance(response, Response) else None,
            principal=caller,
            fan_out=self.fan_out,
        )

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:
        if context.principal is None:
            params = context.connection_params or {}
            header = params.get("Authorization", params.get("authorization"))
            text = header if isinstance(header, str) else None
            try:
                caller = await self._authenticate(context.runtime, text)
            except Refused as refused:
                raise ConnectionRejectionError({"message": "unavailable"}) from refused
            if caller is None:
                raise ConnectionRejectionError(
                    {"message": "Unauthorized", "extensions": {"code": "UNAUTHENTICATED"}}
                )
            context.principal = caller
        self._track(context)
        unset: UnsetType = UNSET
        return unset

    def _track(self, context: Context) -> None:
        socket, caller = context.request, context.principal
        if not isinstance(socket, WebSocket) or caller is None or caller.anonymous:
            return
        self._sockets.track(socket, caller.key_id, context.runtime.api_keys)

    async def parse_multipart(self, request: AsyncHTTPRequestAdapter) -> Any:
        # Strawberry's own reading crashes on a map path through a null and lets a path to
        # nowhere or a text part in place of a file through: read the request strictly.
        form = await request.get_form_data()
        return operations_with_files(form.form)

    async def is_operator(self, request: Request) -> bool:
        """True for a global admin key (role admin, no client): who may see deployment
        details such as backend URLs, as in ``routerStatus``."""
        runtime = self._holder.get("runtime")
        if runtime is None:
            return False
        try:
            caller = await self._authenticate(runtime, request.headers.get("authorization"))
        except Exception:  # a part down: show the least
            return False
        return caller is not None and caller.role is Role.ADMIN and caller.scope.client_id == ""

    async def execute_single(
        self,
        request: Request,
        request_adapter: AsyncHTTPRequestAdapter,
        sub_response: Response,
        context: Context,
        root_value: None,
        request_data: GraphQLRequestData,
    ) -> ExecutionResult:
        # Strawberry would run a subscription sent over plain HTTP as a query, and answer
        # with a confusing null error; say where subscriptions live instead.
        max_tokens = context.runtime.settings.graphql_max_tokens
        query = request_data.query
        sniff = partial(subscribes, query, request_data.operation_name, max_tokens)
        if await off_loop(len(query or ""), sniff):  # parsing 2 MB of text takes 240 ms
            raise HTTPException(400, SUBSCRIPTIONS_OVER_WS)
        return await super().execute_single(
            request, request_adapter, sub_response, context, root_value, request_data
        )

    async def handle_http(self, request: Request) -> Response:
        """Run one HTTP request; every refusal, and every failure, is GraphQL-shaped."""
        try:
            runtime = self._runtime()
            return await self.run(limited(request, _body_limit(request, runtime)))
        except Refused as refused:
            return refused.response
        except HTTPException as error:
            return error_response(error.status_code, error.reason)
        except BodyTooLarge:
            limit = _body_limit(request, self._holder["runtime"])
            return error_response(413, f"the request body is over {limit} bytes")
        except ClientDisconnect:
            # The client went away while sending (an upload cancelled, a dropped network):
            # nothing failed here, and no one is left to read an answer.
            log_event(logger, "graphql.http.disconnected")
            return error_response(400, "the client disconnected before the request was read")
        except Exception:
            logger.exception("graphql.http.failed")
            return error_response(500, MASKED_MESSAGE, "INTERNAL_SERVER_ERROR")


class CohortGraphQL(KenningGraphQL):
    """``KenningGraphQL`` whose subscribers share ``fan_out`` (one per app, built by
    ``create_app``): one execution per event and cohort, and the JSON of shared data."""

    graphql_transport_ws_handler_class = CohortTransportWSHandler
    fan_out: SubscriptionFanOut

    def __init__(
        self,
        holder: dict[str, Runtime],
        unavailable: Callable[[BaseException], str | None],
        *,
        fan_out: SubscriptionFanOut,
        **kwargs: Any,
    ) -> None:
        super().__init__(holder, unavailable, **kwargs)
        self.fan_out = fan_out

    def encode_json(self, data: object) -> str | bytes:
        shared = _shared_data(data)
        if shared is None or not isinstance(data, dict):
            return super().encode_json(data)
        return next_frame(data["id"], self.fan_out.encoded_payloads(shared), data["type"])


def _shared_data(message: object) -> object | None:
    """The ``data`` of a subscription message that carries nothing else, else ``None``."""
    if not isinstance(message, dict) or message.keys() != {"id", "type", "payload"}:
        return None
    payload: Any = message["payload"]
    if not isinstance(payload, dict) or payload.keys() != {"data"}:
        return None
    data = payload["data"]
    return data if isinstance(data, dict) else None

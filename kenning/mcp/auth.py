"""Who calls ``/mcp``: the same API keys and refusals as ``/graphql``, checked per request.

Every HTTP request to the endpoint is authenticated before the MCP transport sees it, so a
revoked key is refused at its next call even inside an open MCP session. The caller found
is put into the ASGI scope, where a tool reads it back (``calls.caller``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.principal import ANONYMOUS, Principal, bearer_key
from kenning.http_errors import REALM, error_response, unavailable_response
from kenning.logs import log_event
from kenning.runtime import Runtime

logger = logging.getLogger("kenning.mcp")

# The ASGI scope key the authenticated caller travels under to the tools.
CALLER = "kenning.mcp.caller"


@dataclass(frozen=True, slots=True)
class Caller:
    """The process's runtime and the principal behind one request's key."""

    runtime: Runtime
    principal: Principal

    @property
    def scoped(self) -> CallerScope:
        """The caller as every use case takes it (the scope rules GraphQL uses)."""
        return CallerScope(self.principal, self.runtime.project_groups)


# The caller of the request under way: set by ``KeyGate`` around the MCP transport.
_current: ContextVar[Caller | None] = ContextVar("kenning_mcp_caller", default=None)


class KeyGate:
    """ASGI middleware admitting only requests with a valid key (or anonymous reads, when
    ``KENNING_ALLOW_ANONYMOUS`` opens them, as on ``/graphql``)."""

    def __init__(
        self,
        app: ASGIApp,
        holder: dict[str, Runtime],
        unavailable: Callable[[BaseException], str | None],
    ) -> None:
        self._app = app
        self._holder = holder
        # Which part an authentication failure means is down (None: not an outage).
        self._unavailable = unavailable

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        admitted = await self._admit(Request(scope))
        if isinstance(admitted, Response):
            await admitted(scope, receive, send)
            return
        scope[CALLER] = admitted
        token = _current.set(admitted)
        try:
            await self._app(scope, receive, send)
        finally:
            _current.reset(token)

    async def _admit(self, request: Request) -> Caller | Response:
        runtime = self._holder.get("runtime")
        if runtime is None:
            return error_response(503, "the server is starting", part="server")
        header = request.headers.get("authorization")
        key = bearer_key(header)
        if key is None:
            if runtime.anonymous_allowed:
                return Caller(runtime, ANONYMOUS)
            return _unauthorized("no API key: send Authorization: Bearer <API key>", REALM)
        try:
            principal = await runtime.api_keys.authenticate(key)
        except Exception as error:
            part = self._unavailable(error)
            if part is None:
                raise
            log_event(logger, "auth.unavailable", logging.WARNING, part=part)
            return unavailable_response(part)
        if principal is None:
            return _unauthorized(
                "the API key is not valid (unknown or revoked)", f'{REALM}, error="invalid_token"'
            )
        return Caller(runtime, principal)


def current_caller() -> Caller | None:
    """The caller of the request being answered, for what the SDK gives no request context
    (a static resource); None outside a request ``KeyGate`` admitted."""
    return _current.get()


def _unauthorized(message: str, challenge: str) -> Response:
    return error_response(401, message, headers={"WWW-Authenticate": challenge})

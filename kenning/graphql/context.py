"""The per-request GraphQL context and the ``Info`` alias resolvers take."""

from __future__ import annotations

from dataclasses import dataclass, field

import strawberry
from starlette.requests import Request
from starlette.responses import Response
from starlette.websockets import WebSocket

from kenning.domain.access.principal import Principal
from kenning.graphql.subscriptions.sharing import SubscriptionFanOut
from kenning.resolvers.loaders import Loaders
from kenning.runtime import Runtime


@dataclass(slots=True)
class Context:
    """What every resolver of one request may use."""

    runtime: Runtime
    request: Request | WebSocket | None = None
    response: Response | None = None
    principal: Principal | None = None
    connection_params: dict[str, object] | None = None
    # What the app's subscribers share (the view's); None: each subscriber runs alone.
    fan_out: SubscriptionFanOut | None = None
    loaders: Loaders = field(init=False)

    def __post_init__(self) -> None:
        self.loaders = Loaders(self.runtime)


Info = strawberry.Info[Context, None]

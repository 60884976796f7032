"""The GraphiQL page at ``GET /graphql``, served by Kenning itself (no CDN, no key needed).

Placeholder until the offline bundle lands: it says the page is not available.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute

__all__ = ["graphiql_page", "graphiql_routes"]


async def graphiql_page(request: Request) -> Response:
    """The GraphiQL HTML page."""
    return PlainTextResponse("GraphiQL is not built in this checkout", status_code=503)


def graphiql_routes() -> list[BaseRoute]:
    """Routes of the page's static assets (JS, CSS), served without a key."""
    return []

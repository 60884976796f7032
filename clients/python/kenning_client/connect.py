"""Clients ready for one server and one API key: the key on every request and on the
subscription socket, the upload preflight header Kenning asks for, a generous timeout.

Example::

    with connect("http://127.0.0.1:8000", key) as kenning:
        print(kenning.search("deploy on tuesdays"))
"""

from __future__ import annotations

from typing import cast

import httpx

from kenning_client.generated import AsyncKenningClient
from kenning_client.generated.async_base_client import HttpClient as AsyncHttp
from kenning_client.generated.base_client import HttpClient as SyncHttp
from kenning_client.generated.client import KenningClient

# Uploads (ingestFile) are refused without it: Kenning's CSRF guard for multipart requests.
PREFLIGHT = {"Apollo-Require-Preflight": "true"}


def _headers(api_key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {api_key}", **PREFLIGHT}


def _ws_url(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return f"{'wss' if scheme == 'https' else 'ws'}://{rest.rstrip('/')}/graphql"


def connect(url: str, api_key: str, *, timeout: float = 120) -> KenningClient:
    """The sync client of the server at ``url`` (its origin, e.g. ``http://127.0.0.1:8000``)."""
    return client_over(httpx.Client(base_url=url, headers=_headers(api_key), timeout=timeout))


def client_over(http: httpx.Client) -> KenningClient:
    """The sync client over ``http``, whose base URL is the server's origin and whose headers
    carry the key."""
    # httpx takes post's body arguments by keyword only, the generated Protocol positionally
    # too; the generated client passes them by keyword.
    return KenningClient(url="/graphql", http_client=cast(SyncHttp, http))


def connect_async(url: str, api_key: str, *, timeout: float = 120) -> AsyncKenningClient:
    """The async client of the server at ``url``, with subscriptions."""
    http = httpx.AsyncClient(base_url=url, headers=_headers(api_key), timeout=timeout)
    return async_client_over(http, api_key)


def async_client_over(http: httpx.AsyncClient, api_key: str = "") -> AsyncKenningClient:
    """The async client over ``http``, whose base URL is the server's origin and whose headers
    carry the key (e.g. an app's ASGI transport in tests); ``api_key`` opens subscriptions."""
    return AsyncKenningClient(
        url="/graphql",
        http_client=cast(AsyncHttp, http),
        ws_url=_ws_url(str(http.base_url)),
        ws_connection_init_payload={"Authorization": f"Bearer {api_key}"},
    )

"""The errors of the router's HTTP/1.1 client (`kenning.router.upstream.http11`):

TransportError            the exchange with the backend failed
├── ConnectError          refused, unreachable, or no connection within the timeout
├── ReadTimeout           no byte for the read timeout
└── RemoteProtocolError   closed or reset before the response ended, or not HTTP
"""

from __future__ import annotations


class TransportError(Exception):
    """The exchange with the backend failed."""


class ConnectError(TransportError):
    """No connection could be made."""


class ReadTimeout(TransportError):
    """The backend sent nothing for the read timeout."""


class RemoteProtocolError(TransportError):
    """The connection ended before the response did, or the answer is not HTTP/1.1."""

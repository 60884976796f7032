"""The router's exceptions, one tree.

RouterError
├── AccessDenied           the caller may not do this (status 401, 403 or 503, and why)
├── InvalidPriority        the X-Ollama-Priority header is not 0-3 or a lane name
├── InvalidRequest         a control request's body cannot be used (field, code)
├── BodyTooLarge           a request body passed the router's limit for it (limit)
├── TooManySessions        an announce past the sessions one client may hold (limit)
├── NoBackendAvailable     no healthy backend may take the request
├── BackendFailure         transport failure talking to one backend (connect, reset)
├── Preempted              a background attempt was cancelled to free a GPU
└── UpstreamError          Ollama answered with an error (status and message kept)
"""

from __future__ import annotations

from collections.abc import Mapping


class RouterError(Exception):
    """Base of every error the router raises."""


class AccessDenied(RouterError):
    """The caller may not do this: no or a bad credential (401), too few rights (403), or
    who it is cannot be told now (503). ``headers`` go on the answer (``WWW-Authenticate``)."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = dict(headers or {})


class InvalidPriority(RouterError):
    """The priority header could not be read."""


class InvalidRequest(RouterError):
    """A control request's body cannot be used: ``field`` names the part (None: the whole
    body), ``code`` is ``INVALID`` or ``TOO_LARGE`` (over a length limit)."""

    def __init__(self, message: str, *, field: str | None = None, code: str = "INVALID") -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.code = code


class BodyTooLarge(RouterError):
    """A request body passed ``limit`` bytes; the rest of it was not read."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the request body is over {limit} bytes")
        self.message = str(self)
        self.limit = limit


class TooManySessions(RouterError):
    """The caller's client holds ``limit`` live sessions already; this announce would add one."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"a client may hold at most {limit} sessions at once: release one, or announce "
            "again under the name of one it holds"
        )
        self.message = str(self)
        self.limit = limit


class NoBackendAvailable(RouterError):
    """No healthy backend is eligible for the request."""


class BackendFailure(RouterError):
    """A transport-level failure on one backend."""

    def __init__(self, backend: str, message: str) -> None:
        super().__init__(f"backend {backend} failed: {message}")
        self.backend = backend


class Preempted(RouterError):
    """The attempt was cancelled to give its GPU to a priority-0 request."""


class UpstreamError(RouterError):
    """Ollama answered with an error status or an error line."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"upstream error {status}: {message}")
        self.status = status
        self.message = message

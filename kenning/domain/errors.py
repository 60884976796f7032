"""The domain's exception tree; each error has a stable code the API exposes.

KenningError
├── ValidationError        bad input, names the field
│   └── TooLargeError      input over a size or count limit
├── SensitiveContentError  content holds credentials (findings: kind + line)
├── ScopeError             read or write outside the caller's scope
├── NotFoundError          a referenced item does not exist
├── ConflictError          state does not allow the operation
└── ConfigurationError     the server cannot run as configured
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Stable codes shared by the domain and the API."""

    INVALID = "INVALID"
    REQUIRED = "REQUIRED"
    TOO_LARGE = "TOO_LARGE"
    SENSITIVE_CONTENT = "SENSITIVE_CONTENT"
    OUT_OF_SCOPE = "OUT_OF_SCOPE"
    NOT_FOUND = "NOT_FOUND"
    CONFLICT = "CONFLICT"
    MISCONFIGURED = "MISCONFIGURED"
    EMBEDDING_FAILED = "EMBEDDING_FAILED"


class KenningError(Exception):
    """Base of every error Kenning raises on purpose."""

    code: ErrorCode = ErrorCode.INVALID

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.field = field


class ValidationError(KenningError):
    """Input that cannot be accepted; ``field`` names the offending input."""

    code = ErrorCode.INVALID


class TooLargeError(ValidationError):
    """Input over a size or count limit; the message gives the limit."""

    code = ErrorCode.TOO_LARGE


class ScopeError(KenningError):
    """The caller asked for data or a write outside its scope."""

    code = ErrorCode.OUT_OF_SCOPE


class NotFoundError(KenningError):
    """A referenced item does not exist (or is invisible to the caller)."""

    code = ErrorCode.NOT_FOUND


class ConflictError(KenningError):
    """The current state does not allow the operation."""

    code = ErrorCode.CONFLICT


class ConfigurationError(KenningError):
    """The server cannot run as configured; the message says what to do."""

    code = ErrorCode.MISCONFIGURED

"""The domain's exception tree; each error has a stable code the API exposes.

Every class, its code (the class's ``code``), what it means and, when it is not defined
here, the module of ``kenning/`` it lives in:

KenningError                    INVALID            base of every error raised on purpose
├── ValidationError             INVALID            bad input, names the field
│   └── TooLargeError           TOO_LARGE          input over a size or count limit
├── SensitiveContentError       SENSITIVE_CONTENT  content holds credentials (findings)
│                                                  in domain/ingestion/secrets/findings.py
├── ScopeError                  OUT_OF_SCOPE       read or write outside the caller's scope
├── NotFoundError               NOT_FOUND          a referenced item does not exist
├── ConflictError               CONFLICT           state does not allow the operation
│   ├── JobStateError           CONFLICT           the job's status does not allow it (status)
│   │                                              in domain/queue/jobs.py
│   ├── LeaseLostError          CONFLICT           this worker no longer holds the job
│   │                                              in domain/queue/jobs.py
│   └── ConnectionRevokedError  CONFLICT           the connection may not ingest (connection_id)
│                                                  in domain/ingestion/source_connections.py
├── ErasedSubjectError          ERASED_SUBJECT     a write names an erased subject (field)
│                                                  in domain/erasure/tombstone.py
├── ConfigurationError          MISCONFIGURED      the server cannot run as configured
│   └── StackError              MISCONFIGURED      the local stack could not be run
│                                                  in cli/stack_process.py, outside the domain
├── OperationalError            INVALID            a backend was unreachable; retry later
│                                                  in domain/queue/jobs.py
├── EmbeddingError              EMBEDDING_FAILED   the embedding backend failed (kind, transient)
│                                                  in domain/embedding.py
├── ModelCallError              MODEL_UNAVAILABLE  a model call failed (transient, retry_after)
│                                                  in domain/models/ports.py
└── ModelOutputError            MODEL_OUTPUT_INVALID  the model's answer stayed invalid after
                                                   every retry (attempts) in domain/models/ports.py

Which of them reach a client as a member of a result union, and which as a top-level
error, is decided in one place: ``kenning/resolvers/errors.py``.
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
    MODEL_UNAVAILABLE = "MODEL_UNAVAILABLE"
    MODEL_OUTPUT_INVALID = "MODEL_OUTPUT_INVALID"
    ERASED_SUBJECT = "ERASED_SUBJECT"


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

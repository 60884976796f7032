"""The domain's exception tree; each error has a stable code the API exposes.

Every class, its code (the class's ``code``), what it means and, when it is not defined
here, the module of ``kenning/`` it lives in:

KenningError                    INVALID            base of every error raised on purpose
├── ValidationError             INVALID            bad input, names the field
│   ├── TooLargeError           TOO_LARGE          input over a size or count limit
│   │   ├── PageTooLargeError   TOO_LARGE          a crawled page over the byte limit, at any
│   │   │                                          layer of its decoding
│   │   │                                          in domain/sources/crawl/errors.py
│   │   └── FileTooLargeError   TOO_LARGE          a file over a byte, page, pixel or cell limit
│   │       │                                      in domain/sources/files/errors.py
│   │       └── ZipBombError    TOO_LARGE          an archive that inflates past the limits
│   │                                              in domain/sources/files/errors.py
│   ├── BlockedAddressError     INVALID            a crawl host on a private or reserved address
│   │                                              in domain/sources/crawl/errors.py
│   ├── UnsupportedPageError    INVALID            a page neither HTML nor plain text
│   │                                              in domain/sources/crawl/errors.py
│   ├── UnsupportedEncodingError  INVALID          a Content-Encoding a crawl does not decode
│   │                                              in domain/sources/crawl/errors.py
│   └── FileRejectedError       INVALID            a file that cannot be extracted (problem)
│       │                                          in domain/sources/files/errors.py
│       ├── UnsupportedFileError  INVALID          a type Kenning does not read (detected)
│       ├── CorruptFileError    INVALID            a recognised format that cannot be read
│       └── EncryptedFileError  INVALID            a password protects the file
├── SensitiveContentError       SENSITIVE_CONTENT  content holds credentials (findings)
│                                                  in domain/ingestion/secrets/findings.py
├── ScopeError                  OUT_OF_SCOPE       read or write outside the caller's scope
├── NotFoundError               NOT_FOUND          a referenced item does not exist
├── ConflictError               CONFLICT           state does not allow the operation
│   ├── JobStateError           CONFLICT           the job's status does not allow it (status)
│   │                                              in domain/queue/jobs.py
│   ├── LeaseLostError          CONFLICT           this worker no longer holds the job
│   │                                              in domain/queue/jobs.py
│   ├── LockWaitError           CONFLICT           a write waited longer than it allows itself
│   │                                              for another writer's lock
│   │                                              in domain/ingestion/ports.py
│   └── ConnectionRevokedError  CONFLICT           the connection may not ingest (connection_id)
│                                                  in domain/ingestion/source_connections.py
├── ErasedSubjectError          ERASED_SUBJECT     a write names an erased subject (field)
│                                                  in domain/erasure/tombstone.py
├── ConfigurationError          MISCONFIGURED      the server cannot run as configured
│   └── StackError              MISCONFIGURED      the local stack could not be run
│                                                  in cli/stack_process.py, outside the domain
├── OperationalError            INVALID            a backend was unreachable; retry later
│                                                  in domain/queue/jobs.py
├── FetchError                  INVALID            a page that could not be fetched (status)
│                                                  in domain/sources/crawl/errors.py
├── UpstreamError               INVALID            a client command (ingest, ingest-repo, crawl,
│                                                  mcp) cannot use its Kenning server
│                                                  in cli/server_errors.py, outside the domain
├── EmbeddingError              EMBEDDING_FAILED   the embedding backend failed (kind, transient)
│                                                  in domain/embedding.py
├── ModelCallError              MODEL_UNAVAILABLE  a model call failed (transient, retry_after)
│                                                  in domain/models/ports.py
└── ModelOutputError            MODEL_OUTPUT_INVALID  the model's answer stayed invalid after
    │                                              every retry (attempts) in domain/models/ports.py
    └── StructureOutputInvalid  MODEL_OUTPUT_INVALID  the same for structureKnowledge, naming
                                                   its INVALID check-in (check_in_id)
                                                   in domain/extraction/structure.py

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

"""Why a file is refused. Every error names the input field ``file`` and a ``problem``.

    ValidationError (INVALID)
    ├── FileRejectedError          base: ``problem`` says which of the below
    │   ├── UnsupportedFileError   UNSUPPORTED_TYPE: the content is no supported format
    │   ├── CorruptFileError       CORRUPT: the format was recognised but cannot be read
    │   └── EncryptedFileError     ENCRYPTED: a password protects it (PDF, OOXML)
    TooLargeError (TOO_LARGE)
    ├── FileTooLargeError          TOO_LARGE: over the byte, page, pixel or cell limit
    └── ZipBombError               ZIP_BOMB: declared inflated size or ratio over the limit

Nothing is returned with any of them: extraction is all or nothing.
"""

from __future__ import annotations

from enum import StrEnum

from kenning.domain.errors import TooLargeError, ValidationError

FIELD = "file"


class FileProblem(StrEnum):
    """What is wrong with a refused file (finer than the error's ``code``)."""

    UNSUPPORTED_TYPE = "UNSUPPORTED_TYPE"
    CORRUPT = "CORRUPT"
    ENCRYPTED = "ENCRYPTED"
    TOO_LARGE = "TOO_LARGE"
    ZIP_BOMB = "ZIP_BOMB"


class FileRejectedError(ValidationError):
    """A file that cannot be extracted; ``problem`` says why."""

    problem: FileProblem = FileProblem.CORRUPT

    def __init__(self, message: str) -> None:
        super().__init__(message, field=FIELD)


class UnsupportedFileError(FileRejectedError):
    """The content is of a type Kenning does not read; ``detected`` says what it looks like."""

    problem = FileProblem.UNSUPPORTED_TYPE

    def __init__(self, message: str, *, detected: str) -> None:
        super().__init__(message)
        self.detected = detected


class CorruptFileError(FileRejectedError):
    """The format was recognised but the file cannot be read."""

    problem = FileProblem.CORRUPT


class EncryptedFileError(FileRejectedError):
    """A password protects the file."""

    problem = FileProblem.ENCRYPTED


class FileTooLargeError(TooLargeError):
    """The file is over a byte, page, pixel or cell limit; the message gives the limit."""

    problem = FileProblem.TOO_LARGE

    def __init__(self, message: str) -> None:
        super().__init__(message, field=FIELD)


class ZipBombError(FileTooLargeError):
    """An archive declares more inflated bytes, or a higher ratio, than allowed."""

    problem = FileProblem.ZIP_BOMB

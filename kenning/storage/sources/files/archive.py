"""ZIP containers (DOCX, PPTX, XLSX) opened safely: the central directory's declared sizes
are checked against the limits before a byte is inflated, and members read here are
streamed with a cap. Python's ``zipfile`` never yields more than an entry's declared size
(a longer stream fails its CRC check), so the declared sizes bound what the Office
libraries inflate too."""

from __future__ import annotations

import io
import zipfile

from kenning.domain.sources.files.errors import CorruptFileError, ZipBombError
from kenning.domain.sources.files.limits import ArchiveEntry, FileLimits, check_archive

_STEP = 64 * 1024


def open_zip(data: bytes, limits: FileLimits) -> zipfile.ZipFile:
    """The archive, its declared sizes checked; ``CorruptFileError`` if it is no ZIP."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, EOFError) as error:
        raise CorruptFileError(f"the ZIP container cannot be read: {error}") from None
    entries = (
        ArchiveEntry(info.filename, info.compress_size, info.file_size)
        for info in archive.infolist()
    )
    check_archive(entries, limits)
    return archive


def read_member(archive: zipfile.ZipFile, name: str, cap: int) -> bytes:
    """The member's bytes, refused once more than ``cap`` of them have been inflated."""
    out = bytearray()
    try:
        with archive.open(name) as stream:
            while chunk := stream.read(_STEP):
                out += chunk
                if len(out) > cap:
                    raise ZipBombError(f"archive entry {name!r} inflates past {cap} bytes")
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        raise CorruptFileError(f"archive entry {name!r} cannot be read: {error}") from None
    return bytes(out)

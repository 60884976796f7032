"""Bad files get a typed error naming the problem, and nothing is returned."""

from __future__ import annotations

import io
import zipfile

import pytest

from kenning.domain.sources.files import (
    CorruptFileError,
    EncryptedFileError,
    ExtractedFile,
    FileLimits,
    FileProblem,
    FileRejectedError,
    FileTooLargeError,
    MediaType,
    OcrMode,
    UnsupportedFileError,
    ZipBombError,
    extract_file,
)
from kenning.storage.sources.files import LibraryFileParser
from tests.support import file_samples as samples
from tests.support import hostile_files as hostile

PARSER = LibraryFileParser()


async def extract(
    data: bytes, limits: FileLimits | None = None, filename: str | None = None
) -> ExtractedFile:
    return await extract_file(
        data, filename=filename, ocr=OcrMode.NEVER, limits=limits or FileLimits(),
        parser=PARSER, describer=None,
    )  # fmt: skip


def _plain_zip() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("readme.txt", "hello")
    return out.getvalue()


@pytest.mark.parametrize(
    ("data", "detected"),
    [
        (b"GIF89a" + bytes(64), "image/gif"),
        (_plain_zip(), "application/zip"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(1024), "application/x-ole-storage"),
        (bytes(range(256)) * 4, "application/octet-stream"),
    ],
)
async def test_unsupported_types_say_what_was_detected(data: bytes, detected: str) -> None:
    with pytest.raises(UnsupportedFileError) as refused:
        await extract(data, filename="report.pdf")  # the name does not make it a PDF
    assert refused.value.detected.startswith(detected)
    assert (refused.value.problem, refused.value.field) == (FileProblem.UNSUPPORTED_TYPE, "file")


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.7\n this is no PDF",
        samples.sample_docx()[:2000],
        samples.text_image(["x"])[:60],
        b"",
    ],
    ids=["pdf", "truncated-docx", "truncated-png", "empty"],
)
async def test_corrupt_files(data: bytes) -> None:
    with pytest.raises(CorruptFileError) as refused:
        await extract(data)
    assert refused.value.problem is FileProblem.CORRUPT


async def test_encrypted_pdf_and_office_files() -> None:
    with pytest.raises(EncryptedFileError, match="PDF is protected by a password"):
        await extract(samples.encrypted_pdf())
    with pytest.raises(EncryptedFileError, match="Office file is encrypted"):
        await extract(hostile.encrypted_office(), filename="budget.xlsx")


async def test_limits_bytes_pages_and_pixels() -> None:
    with pytest.raises(FileTooLargeError, match="over the limit of 1000") as refused:
        await extract(b"a" * 1001, FileLimits(max_bytes=1000))
    assert refused.value.code == "TOO_LARGE"
    with pytest.raises(FileTooLargeError, match="3 pages, over the limit of 2"):
        await extract(samples.text_pdf(["a", "b", "c"]), FileLimits(max_pages=2))
    with pytest.raises(FileTooLargeError, match="pixels"):
        await extract(samples.text_image(["x"]), FileLimits(max_image_pixels=1000))


async def test_a_zip_bomb_is_refused_before_it_is_inflated() -> None:
    bomb = hostile.zip_bomb_docx(inflated_mb=20)
    assert len(bomb) < 100_000
    with pytest.raises(ZipBombError, match="inflates") as refused:
        await extract(bomb, filename="report.docx")
    assert refused.value.problem is FileProblem.ZIP_BOMB
    with pytest.raises(ZipBombError, match="uncompressed"):
        await extract(samples.sample_docx(), FileLimits(max_uncompressed_bytes=10_000))


async def test_a_bad_attachment_is_skipped_with_a_note_but_a_bomb_refuses_the_message() -> None:
    eml = samples.sample_email([("x.gif", b"GIF89a" + bytes(64), "image/gif")])
    extracted = await extract(eml)
    assert extracted.media_type is MediaType.EMAIL
    assert extracted.attachments == ()
    assert any("x.gif" in note and "image/gif" in note for note in extracted.notes)
    bomb = samples.sample_email([("a.docx", hostile.zip_bomb_docx(), "application/octet-stream")])
    with pytest.raises(ZipBombError):
        await extract(bomb)


def test_every_refusal_is_a_validation_error_naming_the_file_field() -> None:
    for error in (UnsupportedFileError("x", detected="y"), CorruptFileError("x"),
                  EncryptedFileError("x"), FileTooLargeError("x"), ZipBombError("x")):  # fmt: skip
        assert error.field == "file"
        assert isinstance(error, FileRejectedError | FileTooLargeError)

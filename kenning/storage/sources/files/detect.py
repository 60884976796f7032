"""The type of a file from its content: magic numbers (puremagic), the parts inside a ZIP
container (DOCX, PPTX and XLSX are all ZIPs), and text sniffing for HTML, e-mail, Markdown
and plain text. A filename or declared type only chooses between Markdown and plain text;
it never makes a PDF of a PNG."""

from __future__ import annotations

import re

import puremagic

from kenning.domain.sources.files.errors import (
    CorruptFileError,
    EncryptedFileError,
    UnsupportedFileError,
)
from kenning.domain.sources.files.extracted import MediaType
from kenning.domain.sources.files.limits import FileLimits
from kenning.storage.sources.files.archive import open_zip

_OOXML_MAIN = {
    "word/document.xml": MediaType.DOCX,
    "ppt/presentation.xml": MediaType.PPTX,
    "xl/workbook.xml": MediaType.XLSX,
}
_CFB = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
# An encrypted OOXML file is a compound file holding this stream (MS-OFFCRYPTO).
_ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")
_SNIFF = 8192
_HTML = re.compile(rb"^\s*(<!doctype\s+html|<html[\s>]|<head[\s>]|<body[\s>])", re.IGNORECASE)
_HTML_TAGS = re.compile(rb"<(p|div|h[1-6]|table|ul|ol|title|meta)[\s>]", re.IGNORECASE)
_HEADER = re.compile(rb"^([A-Za-z][A-Za-z0-9-]*):[ \t]*\S", re.MULTILINE)
_MAIL_HEADERS = {
    b"from",
    b"to",
    b"subject",
    b"date",
    b"message-id",
    b"mime-version",
    b"received",
    b"return-path",
    b"content-type",
    b"cc",
}
_MARKDOWN = re.compile(
    r"^(#{1,6} \S|\s*[-*+] \S|\s*\d+\. \S|```|\|.*\|\s*$|>\s)|\[[^\]]+\]\([^)]+\)|\*\*\S",
    re.MULTILINE,
)
_MARKDOWN_NAMES = (".md", ".markdown", ".mdown", ".mkd")


def detect(
    data: bytes, *, filename: str | None, declared_type: str | None, limits: FileLimits
) -> MediaType:
    """The media type of ``data``; ``UnsupportedFileError`` names what it looks like instead."""
    if not data:
        raise CorruptFileError("the file is empty")
    head = data[:_SNIFF]
    if head.lstrip()[:5] == b"%PDF-" or b"%PDF-" in data[:1024]:
        return MediaType.PDF
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return MediaType.PNG
    if head.startswith(b"\xff\xd8\xff"):
        return MediaType.JPEG
    if head.startswith(b"PK\x03\x04"):
        return _ooxml(data, limits)
    if head.startswith(_CFB):
        if _ENCRYPTED_PACKAGE in data[: 1024 * 1024]:
            raise EncryptedFileError("the Office file is encrypted with a password")
        raise UnsupportedFileError(
            "legacy Office compound files (.doc, .xls, .ppt) are not supported; save as "
            "DOCX, XLSX or PPTX",
            detected="application/x-ole-storage",
        )
    text = _as_text(head)
    if text is None:
        detected = _magic(data)
        raise UnsupportedFileError(f"unsupported file type: {detected}", detected=detected)
    return _text_type(head, text, filename, declared_type)


def decode_text(data: bytes) -> str:
    """Text bytes as a string: UTF-8 (with or without BOM), else Windows-1252."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _ooxml(data: bytes, limits: FileLimits) -> MediaType:
    names = set(open_zip(data, limits).namelist())
    for main, media_type in _OOXML_MAIN.items():
        if main in names:
            return media_type
    raise UnsupportedFileError(
        "a ZIP archive that is not a DOCX, PPTX or XLSX file", detected="application/zip"
    )


def _magic(data: bytes) -> str:
    try:
        found = puremagic.magic_string(data[:_SNIFF])
    except puremagic.PureError:
        return "application/octet-stream (unknown binary)"
    best = found[0]
    return best.mime_type or f"{best.name} ({best.extension})"


def _as_text(head: bytes) -> str | None:
    if b"\x00" in head:
        return None
    text = None
    for cut in range(4):  # the sniffed head may end inside a UTF-8 sequence
        try:
            text = head[: len(head) - cut].decode("utf-8-sig")
            break
        except UnicodeDecodeError:
            continue
    if text is None:
        text = head.decode("cp1252", errors="replace")
    controls = sum(1 for c in text if ord(c) < 32 and c not in "\t\n\r\f")
    if "\ufffd" in text and text.count("\ufffd") > len(text) // 100:
        return None
    return None if controls > len(text) // 100 else text


def _text_type(head: bytes, text: str, filename: str | None, declared: str | None) -> MediaType:
    if _HTML.match(head) or len(_HTML_TAGS.findall(head)) >= 3:
        return MediaType.HTML
    if _is_email(head):
        return MediaType.EMAIL
    hinted = (filename or "").lower().endswith(_MARKDOWN_NAMES) or declared == MediaType.MARKDOWN
    if hinted or len(_MARKDOWN.findall(text)) >= 2:
        return MediaType.MARKDOWN
    return MediaType.TEXT


def _is_email(head: bytes) -> bool:
    """Header lines up to the first blank line, at least two of them known mail headers
    and one of From, Received or MIME-Version."""
    block = re.split(rb"\r?\n\r?\n", head, maxsplit=1)[0]
    names = {m.group(1).lower() for m in _HEADER.finditer(block)}
    known = names & _MAIL_HEADERS
    return len(known) >= 2 and bool(known & {b"from", b"received", b"mime-version"})

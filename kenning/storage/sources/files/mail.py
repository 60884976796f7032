"""E-mail (RFC 822 / .eml): the headers that matter, the body (plain text, else HTML), and
each attachment extracted as its own file, linked to the message by a line in its text. The
``Date`` header, when readable, is when the message says what it says (``observed_at``)."""

from __future__ import annotations

import email
from email import policy
from email.message import EmailMessage

from kenning.domain.ingestion.source_times import email_date
from kenning.domain.sources.files.document import DocumentBuilder
from kenning.domain.sources.files.errors import (
    CorruptFileError,
    EncryptedFileError,
    UnsupportedFileError,
)
from kenning.domain.sources.files.extracted import Attachment, ExtractedFile, MediaType
from kenning.storage.sources.files.context import ReadContext

_SHOWN_HEADERS = ("From", "To", "Cc", "Date", "Subject")


def read_email(data: bytes, context: ReadContext) -> ExtractedFile:
    """The message's headers and body; attachments in ``attachments``."""
    message = email.message_from_bytes(data, policy=policy.default)
    if not isinstance(message, EmailMessage) or not message.keys():
        raise CorruptFileError("the e-mail has no headers")
    builder = DocumentBuilder()
    header = [f"{name}: {message[name]}" for name in _SHOWN_HEADERS if message[name]]
    builder.block("\n".join(header))
    _body(message, builder, context)
    for part in message.iter_attachments():
        if isinstance(part, EmailMessage):
            _attachment(part, builder, context)
    return builder.build(
        MediaType.EMAIL,
        title=str(message["Subject"] or "") or None,
        observed_at=email_date(_raw_header(message, "Date"), "e-mail Date"),
    )


def _raw_header(message: EmailMessage, name: str) -> str | None:
    """The header's text as sent: the policy's parsed form of a malformed date is an error
    object, or raises, where the text is simply unreadable."""
    for key, value in message.raw_items():
        if key.lower() == name.lower():
            return str(value)
    return None


def _body(message: EmailMessage, builder: DocumentBuilder, context: ReadContext) -> None:
    body = message.get_body(preferencelist=("plain", "html"))
    if not isinstance(body, EmailMessage):
        return
    try:
        content = body.get_content()
    except (LookupError, ValueError) as error:
        raise CorruptFileError(f"the e-mail body cannot be decoded: {error}") from None
    if body.get_content_type() == "text/html":
        nested = context.nested(str(content).encode(), None, "text/html", context.depth + 1)
        builder.markdown(nested.text)
    else:
        builder.block(str(content))


def _attachment(part: EmailMessage, builder: DocumentBuilder, context: ReadContext) -> None:
    filename = part.get_filename()
    label = filename or part.get_content_type()
    if context.depth + 1 > context.limits.max_attachment_depth:
        builder.notes.append(f"attachment {label!r} skipped: nested too deep")
        return
    try:
        file = context.nested(_payload(part), filename, part.get_content_type(), context.depth + 1)
    except (UnsupportedFileError, CorruptFileError, EncryptedFileError) as error:
        builder.notes.append(f"attachment {label!r} skipped: {error.message}")
        return
    builder.attachments.append(Attachment(filename, file))
    builder.block(f"Attachment: {label} ({file.media_type.value})")


def _payload(part: EmailMessage) -> bytes:
    try:
        content = part.get_content()
    except (LookupError, ValueError) as error:
        raise CorruptFileError(f"the attachment cannot be decoded: {error}") from None
    if isinstance(content, bytes):
        return content
    if isinstance(content, EmailMessage):
        return content.as_bytes()
    return str(content).encode()

"""Source times: when a source itself says its content was true, read from what it carries.

An e-mail's ``Date`` header, a page's ``Last-Modified``, a PDF's ``ModDate`` (else
``CreationDate``), an Office file's ``modified`` (else ``created``) core property, a
commit's author date. They fill ``observedAt`` only where the writer gave none
(``observed``): a writer's time is a claim checked strictly (``validity.checked_observed_at``,
a ``ValidationError`` naming ``observedAt``), a source's is a hint. A hint that cannot be
read, lies before 1900 or more than a day past now is dropped (logged at debug), never an
error: a file whose producer wrote a broken date is still a good file. A time with no zone
is taken as UTC (python-docx and openpyxl give naive UTC times; PDF dates may omit the zone).

Example::

    observed(None, email_date("Mon, 01 Jul 2024 10:00:00 +0200"))
    # datetime(2024, 7, 1, 8, 0, tzinfo=UTC)
"""

from __future__ import annotations

import logging
import re
from datetime import UTC, datetime, timedelta, timezone
from email.utils import parsedate_to_datetime

from kenning.domain.ingestion.validity import EARLIEST, FUTURE_SLACK

logger = logging.getLogger("kenning.ingestion")

# D:YYYYMMDDHHmmSS then Z, or +HH'mm' / -HH'mm' (every part after the year optional; some
# producers write Z00'00').
_PDF_DATE = re.compile(
    r"(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?"
    r"(?:(Z)(?:00'?00'?)?|([+-])(\d{2})'?(\d{2})?'?)?"
)


def source_time(value: datetime | None, what: str, now: datetime | None = None) -> datetime | None:
    """``value`` in UTC when it is a plausible time (1900 up to a day past ``now``); else
    None, logged at debug with ``what`` it was read from."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    value = value.astimezone(UTC)
    if value < EARLIEST or value > (now or datetime.now(UTC)) + FUTURE_SLACK:
        logger.debug("ingestion.source_time_ignored", extra={"source": what, "value": str(value)})
        return None
    return value


def observed(writer: datetime | None, source: datetime | None) -> datetime | None:
    """The writer's time when given, else the source's."""
    return writer if writer is not None else source


def email_date(text: str | None, what: str = "Date") -> datetime | None:
    """An RFC 5322 date (an e-mail's ``Date``, an HTTP ``Last-Modified``)."""
    if not text or not text.strip():
        return None
    try:
        parsed = parsedate_to_datetime(text.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return _unreadable(what, text)
    return source_time(parsed, what)


def pdf_date(text: str | None, what: str = "PDF date") -> datetime | None:
    """A PDF date string (``D:20240701100000+02'00'``); the parts after the year optional."""
    match = _PDF_DATE.fullmatch((text or "").strip())
    if match is None:
        return _unreadable(what, text) if text and text.strip() else None
    year, month, day, hour, minute, second, utc, sign, zone_h, zone_m = match.groups()
    try:
        zone = UTC
        if sign and not utc:
            offset = timedelta(hours=int(zone_h), minutes=int(zone_m or 0))
            zone = timezone(-offset if sign == "-" else offset)
        parsed = datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            tzinfo=zone,
        )
    except ValueError:
        return _unreadable(what, text)
    return source_time(parsed, what)


def iso_date(text: str | None, what: str = "ISO date") -> datetime | None:
    """An ISO 8601 time (``git log --format=%aI``)."""
    if not text or not text.strip():
        return None
    try:
        parsed = datetime.fromisoformat(text.strip())
    except ValueError:
        return _unreadable(what, text)
    return source_time(parsed, what)


def first_time(*values: object, what: str = "document property") -> datetime | None:
    """The first plausible time among ``values`` (``modified`` before ``created``); what is
    not a ``datetime`` (a library's None or text) is passed over."""
    for value in values:
        found = source_time(value, what) if isinstance(value, datetime) else None
        if found is not None:
            return found
    return None


def _unreadable(what: str, text: str | None) -> datetime | None:
    """None, logged: a source's broken date is its producer's slip, not the writer's error."""
    logger.debug("ingestion.source_time_unreadable", extra={"source": what, "value": text})
    return None

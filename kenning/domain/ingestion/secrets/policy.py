"""``SecretPolicy``: what to do with content that holds credentials, alone in its module so
that reading the settings (every command's start) does not load the detectors."""

from __future__ import annotations

from enum import StrEnum


class SecretPolicy(StrEnum):
    """What to do with content that holds credentials."""

    REJECT = "reject"
    REDACT = "redact"

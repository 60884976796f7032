"""Why a writer changed something: the free-text reason a correction carries into the
``changes`` audit trail (memory items, and the graph's node updates and retractions)."""

from __future__ import annotations

from typing import Final

from kenning.domain.errors import TooLargeError
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy, apply_policy

MAX_REASON: Final = 1000


def check_reason(reason: str | None) -> str | None:
    """The reason trimmed (None when blank): at most 1,000 characters and no credential,
    since it is shown to every reader of the item."""
    if reason is None or not reason.strip():
        return None
    if len(reason) > MAX_REASON:
        raise TooLargeError(f"reason must be at most {MAX_REASON} characters", field="reason")
    try:
        apply_policy(reason, SecretPolicy.REJECT)
    except SensitiveContentError as error:
        error.field = "reason"
        raise
    return reason.strip()

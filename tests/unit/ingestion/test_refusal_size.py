"""A refusal names at most twenty findings, however many credentials a document holds."""

from __future__ import annotations

import random
import string

import pytest

from kenning.domain.ingestion.rules import clean_content
from kenning.domain.ingestion.secrets.findings import SHOWN_FINDINGS, SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy


def test_a_document_full_of_credentials_gets_a_bounded_refusal() -> None:
    rng = random.Random(7)
    alphabet = string.ascii_uppercase + string.digits
    keys = "".join(f"key AKIA{''.join(rng.choices(alphabet, k=16))}\n" for _ in range(500))
    with pytest.raises(SensitiveContentError) as refused:
        clean_content(keys, SecretPolicy.REJECT)
    error = refused.value
    assert len(error.findings) == 500
    assert len(error.shown) == SHOWN_FINDINGS
    assert error.message.endswith(f"and {500 - SHOWN_FINDINGS} more")
    assert len(error.message) < 1000

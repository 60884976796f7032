"""Credential-shaped strings made at run time, so that no credential-shaped literal sits in
the repository."""

from __future__ import annotations

import random
import string

ALNUM = string.ascii_letters + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits


def fake_token(rng: random.Random, alphabet: str, size: int) -> str:
    """``size`` characters of ``alphabet``, a digit and a letter forced in, as real tokens
    virtually always have both."""
    body = [rng.choice(alphabet) for _ in range(size - 2)]
    letters = [c for c in alphabet if c.isalpha()] or list(string.ascii_letters)
    return "".join([*body, rng.choice(string.digits), rng.choice(letters)])

"""In an identifier (a node key, a URN, an entity's name) a provider token is found by its
prefix and length, whatever follows it: stored whole, ``thing:ghp_<36 characters>x`` still
holds the token. Prose keeps whole tokens only."""

from __future__ import annotations

import random
import string

import pytest

from kenning.domain.ingestion.secrets.scan import SecretKind, scan
from tests.support.generated_tokens import ALNUM as _ALNUM
from tests.support.generated_tokens import UPPER_ALNUM as _UPPER_ALNUM
from tests.support.generated_tokens import fake_token

_RNG = random.Random(20261207)


def _fake(alphabet: str, size: int) -> str:
    return fake_token(_RNG, alphabet, size)


@pytest.mark.parametrize(
    ("kind", "token"),
    [
        (SecretKind.GITHUB_TOKEN, "ghp_" + _fake(_ALNUM, 36)),
        (SecretKind.AWS_ACCESS_KEY_ID, "AKIA" + _fake(_UPPER_ALNUM, 16)),
        (SecretKind.GOOGLE_API_KEY, "AIza" + _fake(_ALNUM, 35)),
        (SecretKind.STRIPE_KEY, "sk_live_" + _fake(_ALNUM, 24)),
    ],
)
def test_in_an_identifier_a_token_followed_by_more_characters_is_still_found(
    kind: SecretKind, token: str
) -> None:
    key = f"thing:{token}x9"
    # Prose keeps whole tokens only ("ghp_…x9" is not a token's shape)…
    assert scan(key) == []
    # …but an identifier stored whole would still hold the token.
    found = scan(key, identifier=True)
    assert [(f.kind, key[f.start : f.end]) for f in found] == [(kind, token)]


def test_in_an_identifier_a_common_prefix_mid_word_is_not_a_twilio_key() -> None:
    key = "team:AC" + "".join(_RNG.choice(string.ascii_lowercase) for _ in range(40))
    assert scan(key, identifier=True) == []

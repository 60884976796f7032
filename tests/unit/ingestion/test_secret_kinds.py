"""The credential kinds issue 10 found passing the check are caught; their near-misses pass."""

from __future__ import annotations

import base64
import random
import string

import pytest
from detect_secrets.plugins.base import BasePlugin, RegexBasedDetector
from detect_secrets.plugins.keyword import KeywordDetector

from kenning.domain.ingestion.secrets.scan import SecretKind, SecretPolicy, apply_policy, scan

_RNG = random.Random(20261123)
_ALNUM = string.ascii_letters + string.digits
_LOWER_HEX = "0123456789abcdef"


def _fake(alphabet: str, size: int, first: str = "") -> str:
    # Generated, so no credential-shaped literal sits in the repository; a digit is forced
    # in, as real keys virtually always have one.
    body = [_RNG.choice(alphabet) for _ in range(size - len(first) - 1)]
    digits = [c for c in alphabet if c.isdigit()] or list(string.digits)
    return first + "".join([*body, _RNG.choice(digits)])


def _b64(size: int) -> str:
    return base64.b64encode(_RNG.randbytes(size)).decode()


_AZURE_STORAGE_KEY = _b64(64)  # 88 characters, as Azure issues them
_SERVICE_BUS_KEY = _b64(32)  # 44 characters
_PASSWORD = _fake(_ALNUM, 14)

# (kind, text with "{}" where the secret goes, the secret): every kind issue 10 lists.
CASES: list[tuple[SecretKind, str, str]] = [
    (SecretKind.STRIPE_KEY, "STRIPE_KEY={}", "sk_live_" + _fake(_ALNUM, 24)),
    (SecretKind.STRIPE_KEY, "restricted key {} for reports", "rk_live_" + _fake(_ALNUM, 24)),
    (SecretKind.GOOGLE_API_KEY, "maps: {}", "AIza" + _fake(_ALNUM + "_-", 35)),
    (
        SecretKind.AZURE_STORAGE_KEY,
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={};"
        "EndpointSuffix=core.windows.net",
        _AZURE_STORAGE_KEY,
    ),
    (
        SecretKind.AZURE_SHARED_ACCESS_KEY,
        "Endpoint=sb://acme.servicebus.windows.net/;"
        "SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={}",
        _SERVICE_BUS_KEY,
    ),
    (SecretKind.URL_PASSWORD, "DATABASE_URL=postgresql://app:{}@db.internal:5432/app", _PASSWORD),
    (SecretKind.URL_PASSWORD, "mysql://root:{}@localhost/shop", _fake(_ALNUM, 12)),
    (SecretKind.URL_PASSWORD, "clone https://deploy:{}@git.acme.io/x.git", _fake(_ALNUM, 16)),
    (SecretKind.TWILIO_KEY, "twilio api key {}", "SK" + _fake(_LOWER_HEX, 32)),
    (
        SecretKind.SENDGRID_KEY,
        "SENDGRID_API_KEY={}",
        "SG." + _fake(_ALNUM + "_-", 22) + "." + _fake(_ALNUM + "_-", 43),
    ),
    # A body starting with a letter was taken for a ``name.attr`` code reference.
    (SecretKind.VAULT_TOKEN, "VAULT_TOKEN={}", "hvs." + _fake(_ALNUM, 90, first="CAES")),
    (SecretKind.VAULT_TOKEN, "export VAULT_TOKEN={}", "hvs." + _fake(_ALNUM, 24, first="k")),
    (SecretKind.VAULT_TOKEN, "log in with {} today", "hvb." + _fake(_ALNUM, 40, first="A")),
    (SecretKind.PASSWORD, "the admin password is {}", _fake(_ALNUM + "!#", 12)),
    (SecretKind.PASSWORD, "FYI the password for the staging db is {}.", "S3cure#2024"),
    (SecretKind.PASSWORD, "Password was: {}", _fake(_ALNUM, 10)),
    (
        SecretKind.GITHUB_TOKEN,
        "git remote https://x-access-token:{}@github.com",
        "ghp_" + _fake(_ALNUM, 36),
    ),
    (SecretKind.GITLAB_TOKEN, "deploy token {}", "gldt-" + _fake(_ALNUM, 20)),
    (SecretKind.PYPI_TOKEN, "password = {}", "pypi-AgEIcHlwaS5vcmc" + _fake(_ALNUM, 80)),
    (SecretKind.SQUARE_OAUTH_SECRET, "square: {}", "sq0csp-" + _fake(_ALNUM, 43)),
]


@pytest.mark.parametrize(("kind", "template", "secret"), CASES)
def test_each_kind_is_caught_with_its_span(kind: SecretKind, template: str, secret: str) -> None:
    content = f"Notes first.\n{template.format(secret)}\nNotes after.\n"

    [finding] = scan(content)

    assert finding.kind is kind
    assert finding.line == 2
    assert content[finding.start : finding.end] == secret
    redacted = apply_policy(content, SecretPolicy.REDACT)
    assert secret not in redacted
    assert f"[REDACTED:{kind.value}]" in redacted
    assert scan(redacted) == []


NEAR_MISSES = [
    # Placeholders, documented in kenning.domain.ingestion.secrets.scan: users test with these.
    "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "postgresql://user:password@localhost:5432/app",
    "postgresql://postgres@127.0.0.1:5433/kenning",
    "mysql://root:${MYSQL_ROOT_PASSWORD}@db/shop",
    "https://user:<password>@git.acme.io/x.git",
    "redis://:changeme@localhost:6379/0",
    "STRIPE_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx",
    "SharedAccessKey=<your-key>",
    "AccountKey=...",
    "VAULT_TOKEN=hvs.EXAMPLEEXAMPLEEXAMPLEEXAMPLE",
    # Code and prose that only look like it.
    "token = self.tokenizer.encode(x)",
    "hvs.compute_gradient_norms_for_layer(x)",
    "Vault service tokens start with hvs. and are about 95 characters long.",
    "The password is required.",
    "the password is case-sensitive",
    "The password is hashed with SHA-256 before it is stored.",
    "the password is at least 12 characters long",
    "The password for each account is stored in the vault.",
    "Your password is now reset; check your email.",
    "Google API keys start with AIza.",
    "Stripe live keys start with sk_live_ and test keys with sk_test_.",
    "SendGrid keys look like SG.<id>.<secret>",
    "Twilio: SKIP this step; ACCOUNT_SID comes from the console.",
    "git@github.com:acme/repo.git and https://github.com/acme/repo/blob/main/x.py#L10",
    "ssh://git@github.com/acme/repo.git",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    '"integrity": "sha512-4gFNk8TUv1D5JxfDaSfXP3C4u+Wm8OgU1HqeTfW8sy0NQbOkaW9m9/V1YkDdh9bA==",',
    "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7 ann@laptop",
    "-----BEGIN PGP PUBLIC KEY BLOCK-----",
    "Merge: 3f78685 e4f5a6b\ncommit 3f786850e387550fdab836ed7e6dc881de23001b",
]


@pytest.mark.parametrize("content", NEAR_MISSES)
def test_near_misses_of_the_new_kinds_pass(content: str) -> None:
    assert scan(content) == []


def test_detect_secrets_scanning_entry_points_never_run(monkeypatch: pytest.MonkeyPatch) -> None:
    # They read global settings, may call providers' APIs to verify a key, and the keyword
    # plugin's regexes are super-linear: only the plugins' patterns and validators are used.
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a detect-secrets scanning entry point ran")

    monkeypatch.setattr(BasePlugin, "analyze_line", refuse)
    monkeypatch.setattr(RegexBasedDetector, "analyze_string", refuse)
    monkeypatch.setattr(KeywordDetector, "analyze_string", refuse)
    monkeypatch.setattr(BasePlugin, "verify", refuse)
    content = "\n".join(template.format(secret) for _, template, secret in CASES)

    assert [f.kind for f in scan(content)] == [kind for kind, _, _ in CASES]

"""Secret detection: real-looking credentials are caught, near-misses pass, nothing leaks."""

from __future__ import annotations

import base64
import json
import random
import string

import pytest

from kenning.domain.errors import ErrorCode, KenningError
from kenning.domain.ingestion.secrets.scan import (
    Finding,
    SecretKind,
    SecretPolicy,
    SensitiveContentError,
    apply_policy,
    scan,
)
from tests.support.generated_tokens import ALNUM, UPPER_ALNUM, fake_token

_RNG = random.Random(20240521)
_ALNUM, _UPPER_ALNUM = ALNUM, UPPER_ALNUM


def _fake(alphabet: str, size: int) -> str:
    return fake_token(_RNG, alphabet, size)


def _private_key() -> str:
    body = "\n".join(_fake(_ALNUM + "+/", 64) for _ in range(4))
    return f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"


def _digits(size: int) -> str:
    return "".join(_RNG.choice(string.digits) for _ in range(size))


def _b64url(data: str) -> str:
    return base64.urlsafe_b64encode(data.encode()).decode().rstrip("=")


def _jwt() -> str:
    # detect-secrets checks that the header and payload decode to JSON, as real ones do.
    payload = json.dumps({"sub": _fake(_ALNUM, 12), "iat": 1716300000})
    signature = _b64url(_fake(_ALNUM, 32))
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}))
    return f"{header}.{_b64url(payload)}.{signature}"


# (kind, line with "{}" where the secret goes, the secret)
CORPUS: list[tuple[SecretKind, str, str]] = [
    (SecretKind.PRIVATE_KEY, "{}", _private_key()),
    (
        SecretKind.PRIVATE_KEY,
        "{}",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
        + _fake(_ALNUM, 70)
        + "\n-----END OPENSSH PRIVATE KEY-----",
    ),
    (SecretKind.AWS_ACCESS_KEY_ID, "aws key {} in use", "AKIA" + _fake(_UPPER_ALNUM, 16)),
    (SecretKind.AWS_ACCESS_KEY_ID, "session ASIA key: {}", "ASIA" + _fake(_UPPER_ALNUM, 16)),
    (SecretKind.AWS_SECRET_ACCESS_KEY, "aws_secret_access_key = {}", _fake(_ALNUM + "/+", 40)),
    (SecretKind.AWS_SECRET_ACCESS_KEY, 'AWS_SECRET_ACCESS_KEY: "{}"', _fake(_ALNUM + "/+", 40)),
    (SecretKind.GITHUB_TOKEN, "token is {} ok", "ghp_" + _fake(_ALNUM, 36)),
    (SecretKind.GITHUB_TOKEN, "GH_TOKEN={}", "gho_" + _fake(_ALNUM, 36)),
    (SecretKind.GITHUB_TOKEN, "{}", "ghs_" + _fake(_ALNUM, 36)),
    (
        SecretKind.GITHUB_TOKEN,
        "pat {}",
        "github_pat_" + _fake(_ALNUM, 22) + "_" + _fake(_ALNUM, 59),
    ),
    (SecretKind.GITLAB_TOKEN, "gitlab: {}", "glpat-" + _fake(_ALNUM + "-_", 20)),
    (
        SecretKind.SLACK_TOKEN,
        "slack bot {}",
        "xoxb-" + _digits(12) + "-" + _digits(13) + "-" + _fake(_ALNUM, 24),
    ),
    (
        SecretKind.SLACK_TOKEN,
        "user token {}",
        "xoxp-" + _digits(12) + "-" + _fake(_ALNUM, 30),
    ),
    (
        SecretKind.SLACK_WEBHOOK,
        "post to {} daily",
        "https://hooks.slack.com/services/T"
        + _fake(_UPPER_ALNUM, 8)
        + "/B"
        + _fake(_UPPER_ALNUM, 10)
        + "/"
        + _fake(_ALNUM, 24),
    ),
    (SecretKind.OPENAI_KEY, "OPENAI_API_KEY={}", "sk-proj-" + _fake(_ALNUM + "-_", 48)),
    (SecretKind.OPENAI_KEY, "use {} for the bot", "sk-" + _fake(_ALNUM, 48)),
    (SecretKind.JWT, "cookie session={}; path=/", _jwt()),
    (SecretKind.BEARER_TOKEN, "Authorization: Bearer {}", _fake(_ALNUM + "-._~+/", 40)),
    (SecretKind.BEARER_TOKEN, "curl -H 'authorization: bearer {}'", _fake(_ALNUM, 12)),
    (SecretKind.BEARER_TOKEN, "send it as bearer {} to the API", _fake(_ALNUM, 32)),
    (SecretKind.PASSWORD, "password=hunter2{}", ""),
    (SecretKind.PASSWORD, 'db_password: "{}"', _fake(_ALNUM + "!@#%", 14)),
    (SecretKind.PASSWORD, "spring.datasource.password={}", _fake(_ALNUM, 12)),
    (SecretKind.PASSWORD, "DB_PASSWORD={}", "postgres"),
    (SecretKind.PASSWORD, '{{"user": "ann", "password": "{}"}}', "correct horse"),
    (SecretKind.SECRET, "client_secret: {}", _fake(_ALNUM, 32)),
    (SecretKind.SECRET, "SECRET_KEY = '{}'", _fake(_ALNUM + "!$%^&*", 50)),
    (SecretKind.API_KEY, "api_key={}", _fake(_ALNUM, 32)),
    (SecretKind.API_KEY, "apiKey: '{}'", _fake(_ALNUM, 24)),
    (SecretKind.API_KEY, "STRIPE_APIKEY => {}", "rk_" + _fake(_ALNUM, 24)),
    (SecretKind.TOKEN, "token={}", _fake(_ALNUM, 40)),
    (SecretKind.TOKEN, "refresh_token := {}", _fake(_ALNUM, 30)),
]


def _line(template: str, secret: str) -> str:
    return template.format(secret) if secret else template.format("")


def _secret(template: str, secret: str) -> str:
    # "password=hunter2{}" carries its secret in the template.
    return secret or template.split("=", 1)[1].format("")


@pytest.mark.parametrize(("kind", "template", "secret"), CORPUS)
def test_each_secret_is_caught_with_its_kind_line_and_span(
    kind: SecretKind, template: str, secret: str
) -> None:
    content = f"Some notes.\n\n{_line(template, secret)}\nMore notes.\n"
    value = _secret(template, secret)

    [finding] = scan(content)

    assert finding.kind is kind
    assert finding.line == 3
    line_start = content.index("\n\n") + 2
    assert finding.start_column == finding.start - line_start + 1
    assert content[finding.start : finding.end] == value


def test_a_document_of_all_secrets_reports_each_in_order() -> None:
    lines = [_line(template, secret) for _, template, secret in CORPUS]
    content = "\n".join(f"line {i}: see below\n{text}" for i, text in enumerate(lines))
    findings = scan(content)

    assert [f.kind for f in findings] == [kind for kind, _, _ in CORPUS]
    starts = [content.index(text) for text in lines]
    expected_lines = [content.count("\n", 0, start) + 1 for start in starts]
    assert [f.line for f in findings] == expected_lines


NEAR_MISSES = [
    "The password reset flow sends an email.",
    "the password field is required",
    "password = get_password()",
    "password = os.environ['DB_PASSWORD']",
    "password = settings.db_password",
    "password = password",
    "password: ********",
    "password=<redacted>",
    "password: [REDACTED]",
    'password: "must be at least eight characters long"',
    "password: 1234",
    "api_key = YOUR_API_KEY",
    'api_key: "your-api-key-here"',
    "API_KEY=${API_KEY}",
    "token=$GITHUB_TOKEN",
    "secret: {{ vault.secret }}",
    "password=%(password)s",
    "The secret: always write tests.",
    "token_ttl: 3600",
    "max_tokens = 4096",
    "tokenizer = 'bert-base-uncased'",
    "if password == 'x': pass",
    "We use sk-learn and scikit-learn.",
    "sk-this-is-just-a-long-hyphenated-name",
    "GitHub tokens start with ghp_ followed by 36 characters.",
    "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "AKIAIOSFODNN7EXAMPLE is the documented example key id.",
    "AKIAXXXXXXXXXXXXXXXX",
    "Fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b.",
    "Request id 123e4567-e89b-12d3-a456-426614174000 failed.",
    "Encoded: SGVsbG8gd29ybGQsIHRoaXMgaXMgbm9ybWFsIHRleHQ=",
    "Bearer of bad news.",
    "Use bearer token authentication for the API.",
    "Authorization: Bearer <token>",
    "Authorization: Bearer $ACCESS_TOKEN",
    "Authorization: Bearer YOUR_ACCESS_TOKEN",
    "-----BEGIN PUBLIC KEY-----",
    "-----BEGIN CERTIFICATE-----",
    "Slack webhooks look like https://hooks.slack.com/services/...",
    "xoxb- tokens are bot tokens",
    "PWD=/home/ann/project",
    "Visit https://example.com/reset?token=abc for help",
    'return_token_type_ids = "token_type_ids" in names',
    '"pooling_mode_lasttoken": "lasttoken",',
    'secrets={"MY_SECRET_KEY": "secret_value"}',
    "Build a token-level :class:`~pkg.modules.Dense2` from a config",
    "ids = self.tokenizer_2.encode(text); token = self.tokenizer_2.encode_batch",
    "* ``token=None`` falls back to ``mask_token_id``",
    "password=lambda: ssl_password",
    "token = self.tokenizer.encode(x)",
    "The password is required and the admin password is reset monthly.",
    "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
]


@pytest.mark.parametrize("content", NEAR_MISSES)
def test_near_misses_pass(content: str) -> None:
    assert scan(content) == []
    assert apply_policy(content) == content


def test_redact_replaces_every_secret_with_a_marker_and_keeps_the_rest() -> None:
    lines = [_line(template, secret) for _, template, secret in CORPUS]
    content = "Intro stays.\n" + "\n".join(lines) + "\nOutro stays."

    redacted = apply_policy(content, SecretPolicy.REDACT)

    for _, template, secret in CORPUS:
        assert _secret(template, secret) not in redacted
    for kind in {kind for kind, _, _ in CORPUS}:
        assert f"[REDACTED:{kind.value}]" in redacted
    assert redacted.startswith("Intro stays.\n")
    assert redacted.endswith("\nOutro stays.")
    assert "Authorization: Bearer [REDACTED:bearer_token]" in redacted
    assert 'db_password: "[REDACTED:password]"' in redacted
    assert scan(redacted) == []


def test_an_unterminated_private_key_is_redacted_up_to_the_blank_line() -> None:
    body = _fake(_ALNUM, 64)
    content = f"-----BEGIN EC PRIVATE KEY-----\n{body}\n\nAfter the key."
    assert apply_policy(content, SecretPolicy.REDACT) == "[REDACTED:private_key]\n\nAfter the key."


def test_reject_is_the_default_and_names_kinds_and_lines_but_never_the_secret() -> None:
    token = "ghp_" + _fake(_ALNUM, 36)
    password = _fake(_ALNUM, 16)
    content = f"hello\ntoken {token}\n\npassword={password}\n"

    with pytest.raises(SensitiveContentError) as caught:
        apply_policy(content)

    error = caught.value
    assert isinstance(error, KenningError)
    assert error.code is ErrorCode.SENSITIVE_CONTENT
    assert error.field == "content"
    assert [(f.kind, f.line) for f in error.findings] == [
        (SecretKind.GITHUB_TOKEN, 2),
        (SecretKind.PASSWORD, 4),
    ]
    assert error.message == "content holds credentials: github_token on line 2, password on line 4"
    for shown in (str(error), repr(error), repr(error.findings), str(error.findings)):
        assert token not in shown
        assert password not in shown


def test_finding_repr_shows_position_only() -> None:
    content = "x = 1\napi_key=" + _fake(_ALNUM, 30)
    [finding] = scan(content)
    assert repr(finding) == "Finding(kind=api_key, line=2, columns=9-39)"
    assert str(finding) == "api_key on line 2"
    assert isinstance(finding, Finding)


def test_a_multiline_finding_reports_its_first_line() -> None:
    content = "intro\n" + _private_key() + "\n"
    [finding] = scan(content)
    assert (finding.line, finding.start_column) == (2, 1)
    assert finding.end_column == len("-----BEGIN RSA PRIVATE KEY-----") + 1
    assert content[finding.start : finding.end] == content.strip().split("\n", 1)[1]


def test_clean_content_passes_both_policies_unchanged() -> None:
    content = "Nothing to see here.\nJust prose about user:john and file:A.kt."
    assert apply_policy(content, SecretPolicy.REJECT) == content
    assert apply_policy(content, SecretPolicy.REDACT) == content


def test_the_most_specific_kind_wins_when_detectors_overlap() -> None:
    jwt = _jwt()
    github = "ghp_" + _fake(_ALNUM, 36)
    content = f"Authorization: Bearer {jwt}\ntoken={github}\n"
    assert [(f.kind, f.line) for f in scan(content)] == [
        (SecretKind.JWT, 1),
        (SecretKind.GITHUB_TOKEN, 2),
    ]

"""What a secret finding is, and the error that rejects content holding one.

A ``Finding`` holds where a secret is and what kind it is, never its text, so findings
can be logged, returned to clients and put in error messages safely.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from kenning.domain.errors import ErrorCode, KenningError


class SecretKind(StrEnum):
    """The kinds of credential ``secrets.scan`` recognizes."""

    PRIVATE_KEY = "private_key"
    AWS_ACCESS_KEY_ID = "aws_access_key_id"
    AWS_SECRET_ACCESS_KEY = "aws_secret_access_key"
    GITHUB_TOKEN = "github_token"
    GITLAB_TOKEN = "gitlab_token"
    SLACK_TOKEN = "slack_token"
    SLACK_WEBHOOK = "slack_webhook"
    OPENAI_KEY = "openai_key"
    STRIPE_KEY = "stripe_key"
    GOOGLE_API_KEY = "google_api_key"
    AZURE_STORAGE_KEY = "azure_storage_key"
    AZURE_SHARED_ACCESS_KEY = "azure_shared_access_key"
    TWILIO_KEY = "twilio_key"
    SENDGRID_KEY = "sendgrid_key"
    VAULT_TOKEN = "vault_token"
    PYPI_TOKEN = "pypi_token"
    SQUARE_OAUTH_SECRET = "square_oauth_secret"
    URL_PASSWORD = "url_password"
    JWT = "jwt"
    BEARER_TOKEN = "bearer_token"
    PASSWORD = "password"
    SECRET = "secret"
    API_KEY = "api_key"
    TOKEN = "token"


@dataclass(frozen=True, slots=True, repr=False)
class Finding:
    """A secret's kind and place: 1-based ``line`` and columns, 0-based ``start``/``end``.

    ``end_column`` is exclusive and on ``line``; a secret spanning lines (a private key
    block) ends at the end of its first line there, while ``end`` covers all of it.
    """

    kind: SecretKind
    line: int
    start_column: int
    end_column: int
    start: int
    end: int

    def __repr__(self) -> str:
        return (
            f"Finding(kind={self.kind.value}, line={self.line}, "
            f"columns={self.start_column}-{self.end_column})"
        )

    def __str__(self) -> str:
        return f"{self.kind.value} on line {self.line}"


# A refusal names this many findings; a document full of credentials would otherwise make
# an error response (and a log line) as large as the document.
SHOWN_FINDINGS = 20


def describe_findings(findings: Sequence[Finding]) -> str:
    """``"aws_access_key_id on line 3, ... and 7 more"``: the first ``SHOWN_FINDINGS``."""
    described = ", ".join(str(finding) for finding in findings[:SHOWN_FINDINGS])
    hidden = len(findings) - SHOWN_FINDINGS
    return described + (f" and {hidden} more" if hidden > 0 else "")


class SensitiveContentError(KenningError):
    """Content holds credentials; ``findings`` says which kinds and where, never the text
    (``shown``: the first ``SHOWN_FINDINGS`` of them, for responses)."""

    code = ErrorCode.SENSITIVE_CONTENT

    def __init__(self, findings: Sequence[Finding]) -> None:
        super().__init__(
            f"content holds credentials: {describe_findings(findings)}", field="content"
        )
        self.findings = tuple(findings)

    @property
    def shown(self) -> tuple[Finding, ...]:
        """The findings a response lists."""
        return self.findings[:SHOWN_FINDINGS]

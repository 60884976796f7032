"""Credential detection, run before content is chunked or embedded.

Provider formats come from Yelp's detect-secrets (``secret_detectors``: private keys, AWS
key ids, Azure storage keys, Stripe, Twilio, SendGrid, Slack, GitHub, GitLab, JWTs, PyPI,
Square, Mailchimp, Discord, URLs with a password); Kenning adds what it has no plugin for
(``secret_rules``: Google ``AIza…``, Vault ``hvs.…``, Azure ``SharedAccessKey=``, GitHub
``github_pat_…``, ``sk-…`` keys, bearer tokens, AWS secret keys, "the password is …" in
prose, and ``password``/``secret``/``api_key``/``token`` assignments judged by their value).

Placeholders never count, so documentation and tests can show a credential's shape:
- AWS's documented example key id ``AKIAIOSFODNN7EXAMPLE`` (and its secret key
  ``wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY``): any value containing ``example``,
  ``sample``, ``dummy``, ``placeholder``, ``redacted``, ``changeme`` or ``xxxx`` (any case),
  or ``...``;
- templates: ``<token>``, ``${VAR}``, ``$VAR``, ``$(cmd)``, ``{{ var }}``, ``{var}``,
  ``%(var)s``, ``%VAR%``, ``[…]``, ``your-…``/``my_…``/``insert …``, ``…_here``;
- masks of one or two distinct characters (``********``, ``xxxx-xxxx``);
- stand-in words: ``password``, ``pass``, ``pwd``, ``pw``, ``secret``, ``token``,
  ``apikey`` (``postgresql://user:password@host`` passes);
- sequential strings (``ABCDEF…``, ``0123…``) and UUIDs, as detect-secrets filters them.
A credential written as one of these is not detected: test with a generated value.

Scanning is linear in the input: every pattern starts a match only where a run of its
characters starts, so ``"token_" * 350_000`` is one pass, not a quadratic search.
Findings carry kind and position only; see ``sensitive.Finding``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from kenning.domain.ingestion.secrets.detectors import SHAPES, private_keys
from kenning.domain.ingestion.secrets.findings import Finding, SecretKind, SensitiveContentError
from kenning.domain.ingestion.secrets.policy import SecretPolicy
from kenning.domain.ingestion.secrets.rules import RULES, assignments

__all__ = ["Finding", "SecretKind", "SecretPolicy", "SensitiveContentError", "apply_policy", "scan"]

Span = tuple[SecretKind, int, int]
Detector = Callable[[str, str], Iterator[Span]]


# The order is the priority when matches overlap: a GitHub token assigned to ``token=``
# is a GitHub token, a JWT after "Bearer" a JWT.
DETECTORS: tuple[Detector, ...] = (
    private_keys,
    *(shape.spans for shape in SHAPES),
    *(rule.spans for rule in RULES),
    assignments,
)


# Identifiers (node keys, URNs, names): a provider's token is its prefix and length, whatever
# follows it, since ``thing:ghp_<36 characters>x`` would still be stored whole.
IDENTIFIER_DETECTORS: tuple[Detector, ...] = (
    private_keys,
    *(shape.identifier_spans for shape in SHAPES),
    *(rule.identifier_spans for rule in RULES),
    assignments,
)


def scan(content: str, *, identifier: bool = False) -> list[Finding]:
    """Every credential in ``content``, in order; empty when there is none. An
    ``identifier`` is scanned by ``IDENTIFIER_DETECTORS``.

    Example: ``scan("key AKIA…")[0].kind is SecretKind.AWS_ACCESS_KEY_ID``.
    """
    folded = content.lower()
    detectors = IDENTIFIER_DETECTORS if identifier else DETECTORS
    taken = _without_overlaps(list(detect(content, folded)) for detect in detectors)
    return list(_findings(taken, content))


def apply_policy(content: str, policy: SecretPolicy = SecretPolicy.REJECT) -> str:
    """Content unchanged when clean; else raise (REJECT) or mark each secret (REDACT)."""
    findings = scan(content)
    if not findings:
        return content
    if policy is SecretPolicy.REJECT:
        raise SensitiveContentError(findings)
    parts: list[str] = []
    position = 0
    for finding in findings:
        parts.append(content[position : finding.start])
        parts.append(f"[REDACTED:{finding.kind.value}]")
        position = finding.end
    parts.append(content[position:])
    return "".join(parts)


def _without_overlaps(groups: Iterable[list[Span]]) -> list[Span]:
    """Spans by position, a group's span dropped where an earlier group's overlaps it.

    Each group merges into the kept spans in one pass, so many findings stay linear.
    """
    taken: list[Span] = []
    for group in groups:
        group.sort(key=lambda span: (span[1], span[2]))
        merged: list[Span] = []
        index = 0
        for span in group:
            _, start, end = span
            while index < len(taken) and taken[index][2] <= start:
                merged.append(taken[index])
                index += 1
            if index < len(taken) and taken[index][1] < end:
                continue
            if merged and merged[-1][2] > start:
                continue
            merged.append(span)
        merged.extend(taken[index:])
        taken = merged
    return taken


def _findings(spans: list[Span], content: str) -> Iterator[Finding]:
    """Findings for spans sorted by start, counting lines as it goes (one pass)."""
    line, line_start = 1, 0
    for kind, start, end in spans:
        newlines = content.count("\n", line_start, start)
        if newlines:
            line += newlines
            line_start = content.rfind("\n", line_start, start) + 1
        line_end = content.find("\n", start, end)
        first_line_end = end if line_end < 0 else line_end
        yield Finding(
            kind, line, start - line_start + 1, first_line_end - line_start + 1, start, end
        )

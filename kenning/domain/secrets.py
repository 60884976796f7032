"""Credential detection, run before content is chunked or embedded.

Provider formats (private key blocks, AWS, GitHub, GitLab, Slack, OpenAI-style keys,
JWTs, bearer tokens) are matched by shape. ``password``/``secret``/``api_key``/``token``
assignments (``=``, ``:``, ``:=``, ``=>``) are judged by their value, because the words
alone are everywhere in prose and code:
- ``secret``, ``api_key`` and ``token`` values are secrets when opaque: 16+ characters
  without spaces or brackets, with letters and digits, not a ``snake_case`` name and not
  a dotted attribute (``self.tokenizer_2.encode``);
- a ``password`` given as a quoted literal of 6+ characters is a secret unless it is a
  phrase (two or more spaces: a validation message, not a password); unquoted, it is a
  secret unless it is a number, a call or subscript (``get_password()``,
  ``os.environ[...]``) or a plain or dotted name (``password = password``,
  ``cfg.password``); only ``UPPER_KEY=value`` env-file lines take a bare word as a value;
- placeholders never count: ``<...>``, ``${...}``, ``$VAR``, ``{{...}}``, ``%(x)s``,
  ``YOUR_API_KEY``, ``...EXAMPLE...``, masks such as ``********`` or ``xxxx``.
Findings carry kind and position only; see ``sensitive.Finding``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum

from kenning.domain.sensitive import Finding, SecretKind, SensitiveContentError

__all__ = ["Finding", "SecretKind", "SecretPolicy", "SensitiveContentError", "apply_policy", "scan"]


class SecretPolicy(StrEnum):
    """What to do with content that holds credentials."""

    REJECT = "reject"
    REDACT = "redact"


_PLACEHOLDER = re.compile(
    r"^(?:<.*>|\$\{.*\}|\$\(.*\)|\$[A-Za-z_]\w*|\{\{.*\}\}|%\(?\w+\)?[sd%]?|%\w+%)$"
    r"|^(?:your|my|insert|enter|replace|put|add)[\s_-]"
    r"|_here$|example|placeholder|redacted|changeme|dummy|sample|xxxx|\.\.\.",
    re.IGNORECASE,
)
_REFERENCE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_BARE_WORDS = frozenset({"true", "false", "null", "none", "nil", "undefined"})
_B64_TOKEN = r"[A-Za-z0-9\-._~+/]"


def _placeholder(value: str) -> bool:
    # One or two distinct characters is a mask ("********", "xxxxxx", "-----").
    return bool(_PLACEHOLDER.search(value)) or len(set(value)) <= 2


def _random(value: str) -> bool:
    return not _placeholder(value) and len(set(value)) >= min(8, len(value) // 2)


def _opaque(value: str) -> bool:
    has_digit = any(c.isdigit() for c in value)
    return _random(value) and has_digit and any(c.isalpha() for c in value)


def _always(value: str) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class _Shape:
    """A provider format: the ``secret`` group (or whole match) is judged by ``check``."""

    kind: SecretKind
    pattern: re.Pattern[str]
    check: Callable[[str], bool] = _random


_SHAPES = (
    _Shape(
        SecretKind.PRIVATE_KEY,
        # An unterminated block runs to the next blank line: the key text is in there.
        re.compile(
            r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:.*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|.*?(?=\n[ \t]*\n)|.*)",
            re.DOTALL,
        ),
        _always,
    ),
    _Shape(
        SecretKind.AWS_ACCESS_KEY_ID,
        re.compile(r"(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])"),
    ),
    _Shape(
        SecretKind.GITHUB_TOKEN,
        re.compile(r"(?<![\w-])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_\w{40,})(?![\w-])"),
    ),
    _Shape(SecretKind.GITLAB_TOKEN, re.compile(r"(?<![\w-])glpat-[\w-]{20,}")),
    _Shape(
        SecretKind.SLACK_WEBHOOK,
        re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9]{8,}"),
    ),
    _Shape(SecretKind.SLACK_TOKEN, re.compile(r"(?<![\w-])xox[abprs]-[A-Za-z0-9-]{10,}"), _opaque),
    _Shape(
        SecretKind.OPENAI_KEY,
        re.compile(r"(?<![\w-])sk-(?:proj-|svcacct-|admin-|ant-)?[\w-]{20,}"),
        _opaque,
    ),
    _Shape(
        SecretKind.JWT,
        re.compile(r"(?<![\w-])eyJ[\w-]{5,}\.[\w-]{5,}\.[\w-]{10,}(?![\w-])", re.ASCII),
    ),
    _Shape(
        SecretKind.BEARER_TOKEN,
        re.compile(
            rf"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:bearer)\s+(?P<secret>{_B64_TOKEN}{{8,}}=*)"
        ),
        _opaque,
    ),
    _Shape(
        SecretKind.BEARER_TOKEN,
        re.compile(rf"(?<![A-Za-z0-9])(?i:bearer)\s+(?P<secret>{_B64_TOKEN}{{20,}}=*)"),
        _opaque,
    ),
    _Shape(
        SecretKind.AWS_SECRET_ACCESS_KEY,
        re.compile(
            r"(?i:(?:aws_?)?secret_?access_?key)[\"']?\s*(?:[:=]|=>)\s*[\"']?"
            r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
    ),
)

_ASSIGNMENT = re.compile(
    r"(?<![\w.-])(?P<key>[\w.-]*?(?P<word>password|passwd|passphrase|secret|api[_-]?key|token)"
    r"(?:[_.-][\w.-]*)?)(?P<close>[\"']?)(?P<before>[ \t]*)(?P<op>:=|=>|=(?!=)|:(?![:/]))"
    r"(?P<after>[ \t]*)(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s,;]+)",
    re.IGNORECASE,
)
# Markdown/rST wrapping and sentence punctuation around an unquoted value.
_WRAPPING = "`*"
_TRAILING = "`*'\".,;:)!?"
# Tokens and keys are long opaque strings; spaces or brackets mean prose or code.
_TOKEN_SHAPE = re.compile(r"[^\s()\[\]{}<>]{16,}")
# snake_case or UPPER_CASE names with digits ("token_ids_0", "MAX_TOKENS_2") are names.
_WORDY = re.compile(r"[a-z]+(?:[_.-][a-z0-9]+)*|[A-Z]+(?:[_.-][A-Z0-9]+)*")
_WORD_KINDS = {
    "password": SecretKind.PASSWORD,
    "passwd": SecretKind.PASSWORD,
    "passphrase": SecretKind.PASSWORD,
    "secret": SecretKind.SECRET,
    "token": SecretKind.TOKEN,
}


def scan(content: str) -> list[Finding]:
    """Every credential in ``content``, in order; empty when there is none."""
    candidates = [*_shape_spans(content), *_assignment_spans(content)]
    # Earlier shapes are more specific: a GitHub token assigned to ``token=`` is a GitHub
    # token. Overlapping candidates after the first are the same secret seen twice.
    taken: list[tuple[int, int, SecretKind]] = []  # sorted, never overlapping
    for kind, start, end in candidates:
        index = bisect.bisect_left(taken, (start, end))
        before_clear = index == 0 or taken[index - 1][1] <= start
        after_clear = index == len(taken) or taken[index][0] >= end
        if before_clear and after_clear:
            taken.insert(index, (start, end, kind))
    line_starts = [0, *(m.end() for m in re.finditer("\n", content))]
    return [_finding(kind, start, end, line_starts, content) for start, end, kind in taken]


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


def _shape_spans(content: str) -> Iterator[tuple[SecretKind, int, int]]:
    for shape in _SHAPES:
        for match in shape.pattern.finditer(content):
            group = "secret" if "secret" in shape.pattern.groupindex else 0
            if shape.check(match[group]):
                yield shape.kind, match.start(group), match.end(group)


def _assignment_spans(content: str) -> Iterator[tuple[SecretKind, int, int]]:
    for match in _ASSIGNMENT.finditer(content):
        # "key : value" is prose or rST (":class:"); YAML and JSON put the colon right
        # after the key or its closing quote.
        if match["op"] == ":" and match["before"] and not match["close"]:
            continue
        start, end = match.span("value")
        quoted = end - start >= 2 and content[start] in "\"'" and content[end - 1] == content[start]
        if quoted:
            start, end = start + 1, end - 1
        else:
            while start < end and content[start] in _WRAPPING:
                start += 1
            while end > start and content[end - 1] in _TRAILING:
                end -= 1
        kind = _WORD_KINDS.get(match["word"].lower(), SecretKind.API_KEY)
        env_line = match["key"].isupper() and match["op"] == "=" and not match["before"]
        value = content[start:end]
        if len(value) >= 6 and not _placeholder(value):
            if kind is not SecretKind.PASSWORD:
                secret = _token(value, quoted=quoted)
            else:
                secret = _password(value, quoted=quoted, env_line=env_line and not match["after"])
            if secret:
                yield kind, start, end


def _token(value: str, *, quoted: bool) -> bool:
    if not _TOKEN_SHAPE.fullmatch(value) or _WORDY.fullmatch(value) or not _opaque(value):
        return False
    return quoted or "." not in value or not _REFERENCE.fullmatch(value)


def _password(value: str, *, quoted: bool, env_line: bool) -> bool:
    if quoted:
        return value.count(" ") < 2
    if value.isdigit() or value.lower() in _BARE_WORDS or any(c in value for c in "()[]{}"):
        return False
    if _REFERENCE.fullmatch(value) and not any(c.isdigit() for c in value):
        return env_line and "." not in value
    return True


def _finding(
    kind: SecretKind, start: int, end: int, line_starts: list[int], content: str
) -> Finding:
    line = bisect.bisect_right(line_starts, start)
    line_start = line_starts[line - 1]
    line_end = content.find("\n", start)
    first_line_end = end if line_end < 0 or line_end >= end else line_end
    return Finding(kind, line, start - line_start + 1, first_line_end - line_start + 1, start, end)

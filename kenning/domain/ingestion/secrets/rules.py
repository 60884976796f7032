"""Kenning's own credential rules, for what detect-secrets has no plugin for.

- shapes: Google ``AIza…`` keys, Vault ``hvs.``/``hvb.``/``hvr.`` tokens, GitHub
  fine-grained ``github_pat_…`` tokens, current OpenAI/Anthropic ``sk-…`` keys, Azure
  ``SharedAccessKey=`` (Service Bus, Event Hubs), bearer tokens, AWS secret access keys;
- "the admin password is …" in prose;
- assignments (``password=``, ``"api_key": "…"``, ``token := …``): detect-secrets'
  ``KeywordDetector`` names the right keys (its ``DENYLIST`` is used here) but its regexes
  are super-linear, so keys and values are found by one linear pattern and judged by
  ``secret_values``.

A pattern with an unbounded repeat starts a match only where a run of its characters
starts (a lookbehind, put after the literal lead so the engine still jumps between leads),
and repeats without backtracking where it can (possessive ``++``), so a pass is linear.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from detect_secrets.plugins.keyword import DENYLIST

from kenning.domain.ingestion.secrets.findings import SecretKind
from kenning.domain.ingestion.secrets.values import (
    opaque,
    password_value,
    prose_password,
    provider_value,
    token_value,
)

Span = tuple[SecretKind, int, int]
_B64_TOKEN = r"[A-Za-z0-9\-._~+/]"
# The end of a whole token, which an identifier's match does without.
_TOKEN_END = r"(?![\w-])"


@dataclass(frozen=True, slots=True)
class Rule:
    """A shape: the ``secret`` group (or the whole match) is judged by ``check``."""

    kind: SecretKind
    pattern: re.Pattern[str]
    trigger: str
    check: Callable[[str], bool] = provider_value
    # Sentence punctuation that may follow the secret and is not part of it.
    strip: str = ""
    open_pattern: re.Pattern[str] = field(init=False)

    def __post_init__(self) -> None:
        # A rule whose pattern does not end a whole token (an assignment's value, a bearer
        # token) matches an identifier exactly as it matches prose.
        source = self.pattern.pattern.removesuffix(_TOKEN_END)
        object.__setattr__(self, "open_pattern", re.compile(source, self.pattern.flags))

    def spans(self, content: str, folded: str) -> Iterator[Span]:
        """Every match of this rule in ``content`` that ``check`` accepts."""
        yield from self._spans(content, folded, self.pattern)

    def identifier_spans(self, content: str, folded: str) -> Iterator[Span]:
        """As ``spans``, but a token may run on into more token characters (an identifier's
        ``AIza<35 characters>x`` still holds the key)."""
        yield from self._spans(content, folded, self.open_pattern)

    def _spans(self, content: str, folded: str, pattern: re.Pattern[str]) -> Iterator[Span]:
        if self.trigger not in folded:
            return
        group = "secret" if "secret" in pattern.groupindex else 0
        for match in pattern.finditer(content):
            start, end = match.span(group)
            while end > start and content[end - 1] in self.strip:
                end -= 1
            if self.check(content[start:end]):
                yield self.kind, start, end


# The order is the priority when matches overlap: the more specific rule first.
RULES: tuple[Rule, ...] = (
    Rule(SecretKind.GOOGLE_API_KEY, re.compile(r"AIza(?<![\w-]AIza)[\w-]{35}(?![\w-])"), "aiza"),
    # The body may start with a letter: "hvs.CAES…" is a token, not an attribute access.
    Rule(
        SecretKind.VAULT_TOKEN,
        re.compile(r"hv(?<![\w.-]hv)[sbr]\.[\w-]{24,}+(?![\w-])"),
        "hv",
        opaque,
    ),
    Rule(
        SecretKind.GITHUB_TOKEN,
        re.compile(r"github_pat_(?<![\w-]github_pat_)\w{40,}+(?![\w-])"),
        "github_pat_",
    ),
    Rule(
        SecretKind.OPENAI_KEY,
        re.compile(r"sk-(?<![\w-]sk-)(?:proj-|svcacct-|admin-|ant-)?[\w-]{20,}+"),
        "sk-",
        opaque,
    ),
    Rule(
        SecretKind.AZURE_SHARED_ACCESS_KEY,
        re.compile(r"SharedAccessKey[ \t]*+=[ \t]*+(?P<secret>[A-Za-z0-9+/]{20,}+={0,2})"),
        "sharedaccesskey",
    ),
    Rule(
        SecretKind.BEARER_TOKEN,
        re.compile(
            r"(?i:authorization)(?<![\w-].{13})[\"']?[ \t]*+[:=][ \t]*+[\"']?(?i:bearer)[ \t]++"
            rf"(?P<secret>{_B64_TOKEN}{{8,}}+=*)"
        ),
        "bearer",
        opaque,
    ),
    Rule(
        SecretKind.BEARER_TOKEN,
        re.compile(rf"(?i:bearer)(?<![A-Za-z0-9].{6})[ \t]++(?P<secret>{_B64_TOKEN}{{20,}}+=*)"),
        "bearer",
        opaque,
    ),
    Rule(
        SecretKind.AWS_SECRET_ACCESS_KEY,
        re.compile(
            r"(?i:aws_?secret_?access_?key|secret_?access_?key)[\"']?[ \t]*+(?:[:=]|=>)"
            r"[ \t]*+[\"']?"
            r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        "access",
    ),
    Rule(
        SecretKind.PASSWORD,
        re.compile(
            r"(?i:pass)(?<![\w-].{4})(?i:word|wd|phrase|code)(?![\w-])"
            r"(?:[ \t]+(?i:for|of|on|to)(?:[ \t]+[\w.@:/-]{1,64}+){1,3}?)?"
            r"[ \t]+(?i:is|was)(?![\w-])[ \t]*+:?[ \t]*+(?:(?i:set[ \t]+to|now)[ \t]+)?"
            r"[\"'`]?(?P<secret>[^\s\"'`]{1,128}+)(?![^\s\"'`])"
        ),
        "pass",
        prose_password,
        strip=".,;:!?)",
    ),
)

_ASSIGNMENT = re.compile(
    # The lookahead is a cheap bounded guess (a secret word within the key's first 100
    # characters) that spares most "a = b" the trip to Python; ``_key_kind`` decides.
    r"(?<![\w.-])(?=[\w.-]{0,100}?(?i:pass|pwd|secret|token|key|contrase))"
    r"(?P<key>[\w.-]++)(?P<close>[\"'\]]{0,2}+)(?P<before>[ \t]*+)"
    r"(?P<op>:=|=>|=(?!=)|:(?![:/]))(?P<after>[ \t]*+)"
    r"(?P<value>\"[^\"\n]*+\"|'[^'\n]*+'|[^\s,;]++)"
)
# detect-secrets' names for keys holding secrets, whole words of the key ("api_key",
# "db_password"); Kenning adds "token" and "passphrase".
_SECRET_WORD = re.compile(
    rf"(?:^|_)(?P<word>{'|'.join(DENYLIST)}|token|passphrase)(?:_|$)", re.IGNORECASE
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD_KINDS = {"secret": SecretKind.SECRET, "token": SecretKind.TOKEN}
_PASSWORD_WORDS = ("pass", "pwd", "contrase")
_MAX_KEY = 100
# Markdown/rST wrapping and sentence punctuation around an unquoted value.
_WRAPPING = "`*"
_TRAILING = "`*'\".,;:)!?"


@functools.lru_cache(maxsize=4096)
def _key_kind(key: str) -> SecretKind | None:
    if len(key) > _MAX_KEY:
        return None
    words = re.sub(r"[.-]", "_", _CAMEL.sub("_", key))
    found = _SECRET_WORD.search(words)
    if found is None:
        return None
    word = found["word"].lower()
    if any(part in word for part in _PASSWORD_WORDS):
        return SecretKind.PASSWORD
    return _WORD_KINDS.get(word, SecretKind.API_KEY)


def assignments(content: str, folded: str) -> Iterator[Span]:
    """Values assigned to secret-named keys that look like credentials, not code or prose."""
    for match in _ASSIGNMENT.finditer(content):
        key, close, before, op, after = match.group("key", "close", "before", "op", "after")
        # "key : value" is prose or rST (":class:"); YAML and JSON put the colon right
        # after the key or its closing quote.
        if op == ":" and before and not close:
            continue
        kind = _key_kind(key)
        if kind is None:
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
        value = content[start:end]
        if len(value) < 6:
            continue
        if kind is SecretKind.PASSWORD:
            env_line = op == "=" and not before and not after and key.isupper()
            secret = password_value(value, quoted=quoted, env_line=env_line)
        else:
            secret = token_value(value, quoted=quoted)
        if secret:
            yield kind, start, end

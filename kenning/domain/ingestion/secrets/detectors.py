"""Provider credential shapes from Yelp's detect-secrets, run so they stay linear in the input.

detect-secrets (``detect_secrets.plugins``) keeps the formats of AWS, Azure storage, Stripe,
Twilio, SendGrid, Slack, GitHub, GitLab, JWT, private keys, URLs with passwords and more.
Kenning takes each plugin's ``denylist`` patterns and its validators, not its scanning
entry points, for three reasons:

- ``analyze_line``/``scan_line`` read process-wide settings (not safe from worker threads)
  and, when verification is enabled there, send the found secret to the provider's API;
- they report the secret's text, while redaction needs its position;
- several patterns restart at every occurrence of their prefix: ``"eyJa" * 8000`` costs the
  JWT pattern quadratic time, ``"password_" * 4000`` (36 kB) kept the keyword plugin busy
  for over five minutes. Each pattern here is wrapped in a lookbehind so a match only starts
  where the run of its characters starts, which makes one pass over the text linear; the
  keyword plugin's regexes are not used at all (see ``secret_rules``).

Read ``SHAPES`` first: it says which plugin yields which ``SecretKind``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

from detect_secrets.plugins.aws import AWSKeyDetector
from detect_secrets.plugins.azure_storage_key import AzureStorageKeyDetector
from detect_secrets.plugins.base import RegexBasedDetector
from detect_secrets.plugins.basic_auth import BasicAuthDetector
from detect_secrets.plugins.github_token import GitHubTokenDetector
from detect_secrets.plugins.gitlab_token import GitLabTokenDetector
from detect_secrets.plugins.jwt import JwtTokenDetector
from detect_secrets.plugins.openai import OpenAIDetector
from detect_secrets.plugins.private_key import PrivateKeyDetector
from detect_secrets.plugins.pypi_token import PypiTokenDetector
from detect_secrets.plugins.sendgrid import SendGridDetector
from detect_secrets.plugins.slack import SlackDetector
from detect_secrets.plugins.square_oauth import SquareOAuthDetector
from detect_secrets.plugins.stripe import StripeDetector
from detect_secrets.plugins.twilio import TwilioKeyDetector

from kenning.domain.ingestion.secrets.findings import SecretKind
from kenning.domain.ingestion.secrets.values import opaque, placeholder, provider_value

Span = tuple[SecretKind, int, int]
# A match may not start or end inside a run of these: a key is a whole token.
_TOKEN_CHARS = r"\w-"


def _jwt_value(value: str) -> bool:
    return bool(JwtTokenDetector.is_formally_valid(value)) and not placeholder(value)


def _url_password(value: str) -> bool:
    return not placeholder(value) and not value.startswith("$")


def wrap(source: str, leads: tuple[str, ...], guard: str = "", right: bool = True) -> str:
    """``source`` matching only where a run of token characters starts with one of ``leads``.

    The lookbehind goes after the literal lead, not before it, so the regex engine still
    jumps from one occurrence of the lead to the next instead of stepping through every
    character (40 ms against 1 ms per 2 MB). Without a lead, the pattern must be linear by
    itself (every repeat bounded).
    Example: ``wrap("eyJ[\\w]+", ("eyJ",))`` is ``"eyJ(?<![\\w-]eyJ)(?:[\\w]+)(?![\\w-])"``.
    """
    tail = f"(?![{_TOKEN_CHARS}])" if right else ""
    for lead in leads:
        if source.startswith(lead):
            rest = source[len(lead) :]
            return f"{lead}(?<![{_TOKEN_CHARS}]{lead}){guard}(?:{rest}){tail}"
    return f"(?:{source}){tail}"


@dataclass(frozen=True, slots=True)
class Shape:
    """One detect-secrets plugin: the kind it yields and when its patterns are worth running.

    ``triggers`` are literals one of which any match holds (lower-cased when
    ``fold_case``); text without them is skipped without running a pattern. ``leads`` are
    the literal starts of patterns whose repeats are unbounded (see ``wrap``).
    """

    plugin: type[RegexBasedDetector]
    kind: SecretKind
    triggers: tuple[str, ...]
    fold_case: bool = False
    check: Callable[[str], bool] = provider_value
    leads: tuple[str, ...] = ()
    # A bounded lookahead after the lead that every real match passes.
    guard: str = ""
    # A URL's password ends at "@", not at the end of a token.
    right: bool = True
    skip_patterns: frozenset[int] = frozenset()
    # The group holding the secret (0: the whole match), and how many of its characters to
    # leave out: "AccountKey=" names the key.
    group: int = 0
    prefix: int = 0
    kinds_by_prefix: tuple[tuple[str, SecretKind], ...] = ()
    # Whether an identifier's match may run on into more token characters (``identifier_
    # spans``): not for prefixes as common as Twilio's "AC"/"SK" mid-word.
    open_in_identifiers: bool = True
    patterns: tuple[re.Pattern[str], ...] = field(init=False, default=())
    open_patterns: tuple[re.Pattern[str], ...] = field(init=False, default=())

    def __post_init__(self) -> None:
        # Each plugin sets ``denylist`` on its class (the base declares it a property).
        denylist: Sequence[re.Pattern[str]] = vars(self.plugin)["denylist"]
        used = [p for index, p in enumerate(denylist) if index not in self.skip_patterns]
        for name, right in (("patterns", self.right), ("open_patterns", False)):
            compiled = tuple(
                re.compile(wrap(p.pattern, self.leads, self.guard, right), p.flags) for p in used
            )
            object.__setattr__(self, name, compiled)

    def spans(self, content: str, folded: str) -> Iterator[Span]:
        """Every credential of this shape in ``content`` (``folded`` is it lower-cased)."""
        yield from self._spans(content, folded, self.patterns)

    def identifier_spans(self, content: str, folded: str) -> Iterator[Span]:
        """As ``spans``, but a match may be followed by more token characters: in a node key
        or URN, ``thing:ghp_<36 characters>x`` still holds the token."""
        chosen = self.open_patterns if self.open_in_identifiers else self.patterns
        yield from self._spans(content, folded, chosen)

    def _spans(
        self, content: str, folded: str, patterns: tuple[re.Pattern[str], ...]
    ) -> Iterator[Span]:
        haystack = folded if self.fold_case else content
        if not any(trigger in haystack for trigger in self.triggers):
            return
        for pattern in patterns:
            for match in pattern.finditer(content):
                start, end = match.span(self.group)
                start += self.prefix
                if self.check(content[start:end]):
                    yield self._kind(content[start:end]), start, end

    def _kind(self, value: str) -> SecretKind:
        return next((k for p, k in self.kinds_by_prefix if value.startswith(p)), self.kind)


# The order is the priority when matches overlap: the more specific shape first.
SHAPES: tuple[Shape, ...] = (
    # A JWT's header and payload are JSON objects: each over ten characters encoded.
    Shape(
        JwtTokenDetector,
        SecretKind.JWT,
        ("eyJ",),
        check=_jwt_value,
        leads=("eyJ",),
        guard=r"(?=[\w=-]{7,}+\.[\w=-]{10})",
    ),
    Shape(
        AWSKeyDetector,
        SecretKind.AWS_ACCESS_KEY_ID,
        ("A3T", "ABIA", "ACCA", "AKIA", "ASIA"),
        # Its second pattern ("aws" then up to 20 of anything, twice) is quadratic on
        # "aws key aws key ..."; Kenning's own AWS secret key rule covers it.
        skip_patterns=frozenset({1}),
    ),
    Shape(
        AzureStorageKeyDetector,
        SecretKind.AZURE_STORAGE_KEY,
        ("AccountKey=",),
        check=opaque,
        prefix=len("AccountKey="),
        right=False,
    ),
    Shape(StripeDetector, SecretKind.STRIPE_KEY, ("k_live_",)),
    Shape(TwilioKeyDetector, SecretKind.TWILIO_KEY, ("AC", "SK"), open_in_identifiers=False),
    Shape(SendGridDetector, SecretKind.SENDGRID_KEY, ("SG.",)),
    Shape(
        SlackDetector,
        SecretKind.SLACK_TOKEN,
        ("xox", "hooks.slack.com"),
        fold_case=True,
        leads=("xox",),
        kinds_by_prefix=(("https://", SecretKind.SLACK_WEBHOOK),),
    ),
    Shape(GitHubTokenDetector, SecretKind.GITHUB_TOKEN, ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    Shape(GitLabTokenDetector, SecretKind.GITLAB_TOKEN, ("gl", "GR1348941"), leads=("glagent-",)),
    Shape(OpenAIDetector, SecretKind.OPENAI_KEY, ("T3BlbkFJ",), leads=("sk-",)),
    Shape(PypiTokenDetector, SecretKind.PYPI_TOKEN, ("pypi-",), leads=("pypi-",)),
    Shape(SquareOAuthDetector, SecretKind.SQUARE_OAUTH_SECRET, ("sq0csp-",)),
    Shape(
        BasicAuthDetector,
        SecretKind.URL_PASSWORD,
        ("://",),
        check=_url_password,
        group=1,
        right=False,
    ),
)


# detect-secrets names the header of each private key format it knows.
_KEY_HEADER = re.compile("|".join(pattern.pattern for pattern in PrivateKeyDetector.denylist))
_KEY_END = re.compile(r"-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def private_keys(content: str, folded: str) -> Iterator[Span]:
    """Private key blocks: from the header to its END line, else to the next blank line.

    Headers inside a block already found are skipped, so every search starts past the last
    one and the whole pass stays linear.
    """
    if "PRIVATE KEY" not in content and "PuTTY-User-Key-File" not in content:
        return
    covered = 0
    no_end_after = len(content) + 1
    for header in _KEY_HEADER.finditer(content):
        if header.start() < covered:
            continue
        start = header.start()
        dashes = content.rfind("-----", max(0, start - 5), start)
        start = dashes if dashes >= 0 else start
        end = _block_end(content, header.end(), no_end_after)
        if end is None:
            no_end_after = header.end()
            end = _block_end(content, header.end(), no_end_after)
        assert end is not None
        covered = end
        yield SecretKind.PRIVATE_KEY, start, end


def _block_end(content: str, position: int, no_end_after: int) -> int | None:
    if position < no_end_after:
        found = _KEY_END.search(content, position)
        if found:
            return found.end()
        return None
    blank = _BLANK_LINE.search(content, position)
    return blank.start() if blank else len(content)

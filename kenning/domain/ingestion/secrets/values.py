"""Whether a candidate value is a credential or a placeholder, name, number or phrase.

Shared by the provider rules and the ``password=``/``token:`` assignment rules: a shape says
where a credential could be, these checks say whether what is there is one. detect-secrets'
heuristic filters (sequential strings, UUIDs, templates, no letters) and its Shannon entropy
are used as they are; Kenning adds the placeholders its users write in documentation.
"""

from __future__ import annotations

import re

from detect_secrets.filters.heuristic import (
    is_not_alphanumeric_string,
    is_potential_uuid,
    is_sequential_string,
    is_templated_secret,
)
from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

# Placeholders as documentation writes them; any value holding one is never a credential.
_TEMPLATE = re.compile(
    r"<.*>|\$\{.*\}|\$\(.*\)|\$[A-Za-z_]\w*|\{\{.*\}\}|%\(?\w+\)?[sd%]?|%\w+%|\[.*\]", re.DOTALL
)
_STAND_IN_START = re.compile(r"(?:your|my|insert|enter|replace|put|add)[\s_-]", re.IGNORECASE)
_STAND_IN_PARTS = ("example", "placeholder", "redacted", "changeme", "dummy", "sample", "xxxx")
# Words documentation puts where a password goes: ``postgresql://user:password@host``.
_STAND_IN_WORDS = frozenset(
    {"password", "passwd", "pass", "pwd", "pw", "secret", "token", "apikey", "api_key", "none"}
)
_REFERENCE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_DIGIT = re.compile(r"\d")
_CODE = re.compile(r"[()\[\]{}]")
_BARE_WORDS = frozenset({"true", "false", "null", "none", "nil", "undefined"})
# Tokens and keys are long opaque strings; spaces or brackets mean prose or code.
_TOKEN_SHAPE = re.compile(r"[^\s()\[\]{}<>]{16,}")
# snake_case or UPPER_CASE names with digits ("token_ids_0", "MAX_TOKENS_2") are names.
_WORDY = re.compile(r"[a-z]+(?:[_.-][a-z0-9]+)*|[A-Z]+(?:[_.-][A-Z0-9]+)*")
# A word of prose, capitalized or hyphenated: "required", "Case-sensitive".
_PROSE_WORD = re.compile(r"[A-Za-z][a-z]*(?:['-][A-Za-z][a-z]*)*|[A-Z]+s?")
# An algorithm, standard or size named in prose: "SHA-256", "AES256", "UTF-8", "12-character".
_PROSE_TERM = re.compile(r"[A-Z]{2,}-?\d+|\d+(?:-?[a-z]+)+|\d+\+?")
# Longer values are data, not something a person types or a service issues as a key.
MAX_VALUE = 512
_ENTROPY = Base64HighEntropyString()


def placeholder(value: str) -> bool:
    """Whether ``value`` stands in for a credential: ``<token>``, ``${X}``, ``xxxx``, ``EXAMPLE``.

    Example: ``placeholder("AKIAIOSFODNN7EXAMPLE")`` is ``True`` (AWS's documented key).
    """
    folded = value.lower()
    # One or two distinct characters is a mask ("********", "xxxxxx", "-----").
    if len(set(value)) <= 2 or folded in _STAND_IN_WORDS or folded.endswith("_here"):
        return True
    if "..." in value or any(part in folded for part in _STAND_IN_PARTS):
        return True
    if value[0] in "<$%{[" and _TEMPLATE.fullmatch(value):
        return True
    return bool(_STAND_IN_START.match(value)) or is_templated_secret(value)


def provider_value(value: str) -> bool:
    """Whether a provider-shaped match (``AKIA…``, ``sk_live_…``) holds a real-looking key."""
    if placeholder(value) or is_sequential_string(value) or is_potential_uuid(value):
        return False
    return len(set(value)) >= min(8, len(value) // 2)


def entropy(value: str) -> float:
    """Shannon entropy per character over the base64 alphabet (detect-secrets' measure)."""
    return float(_ENTROPY.calculate_shannon_entropy(value))


def opaque(value: str) -> bool:
    """Random-looking: letters and digits, many distinct characters, not a placeholder."""
    if not provider_value(value) or is_not_alphanumeric_string(value):
        return False
    return bool(_DIGIT.search(value)) and entropy(value) >= 3.0


def token_value(value: str, *, quoted: bool) -> bool:
    """Whether the value of ``token=``/``secret:``/``api_key=`` is a credential."""
    if len(value) > MAX_VALUE or not _TOKEN_SHAPE.fullmatch(value) or _WORDY.fullmatch(value):
        return False
    if not opaque(value):
        return False
    # Unquoted ``self.tokenizer_2.encode`` is code; quoted, any dotted string is data.
    return quoted or "." not in value or not _REFERENCE.fullmatch(value)


def password_value(value: str, *, quoted: bool, env_line: bool) -> bool:
    """Whether the value of ``password=`` is one; only ``KEY=word`` lines take a bare word."""
    if len(value) > MAX_VALUE or placeholder(value):
        return False
    if quoted:
        # Two or more spaces: a validation message, not a password.
        return value.count(" ") < 2
    if value.isdigit() or value.lower() in _BARE_WORDS or _CODE.search(value):
        return False
    if value.startswith(("/", "~/", "./", "../")):
        return False  # a path, as in ``PWD=/home/ann``
    if _REFERENCE.fullmatch(value) and not _DIGIT.search(value):
        return env_line and "." not in value
    return True


def prose_password(value: str) -> bool:
    """Whether the word after "the password is" is a password rather than more prose.

    Example: ``prose_password("hunter2")`` is ``True``; ``prose_password("required")`` is not.
    """
    if len(value) < 6 or len(value) > MAX_VALUE or placeholder(value):
        return False
    return not (_PROSE_WORD.fullmatch(value) or _PROSE_TERM.fullmatch(value))

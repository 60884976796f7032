"""Pure rules of the write path: segmented scanning of large text, credentials named by
field, and which key normalizations deserve a warning."""

from __future__ import annotations

import pytest

from kenning.domain.ingestion.extraction_warnings import changed_key
from kenning.domain.ingestion.references import extract
from kenning.domain.ingestion.rules import (
    SEGMENT_CHARS,
    check_identifiers,
    clean_content,
    clean_metadata,
    segments,
)
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy

CRED = "ghp_" + "Z1x2C3v4B5" * 3 + "N6m7K8"


@pytest.mark.parametrize(
    "text",
    [
        "word " * 60_000,  # one long line
        "line\n" * 60_000,
        "para one\npara two\n\n" * 20_000,
        "short\n" + "y" * (3 * SEGMENT_CHARS) + "\nend",
    ],
)
def test_segments_cover_the_text_exactly_and_count_lines(text: str) -> None:
    parts = list(segments(text))
    assert "".join(part for _, _, part in parts) == text
    for offset, lines, part in parts:
        assert text[offset : offset + len(part)] == part
        assert text.count("\n", 0, offset) == lines


def test_a_credential_deep_in_large_content_is_found_on_its_line() -> None:
    lines = [f"line {i} of ordinary prose." for i in range(20_000)]
    lines[15_000] = f"deploy with {CRED} today"
    content = "\n".join(lines)
    assert len(content) > 4 * SEGMENT_CHARS
    with pytest.raises(SensitiveContentError) as caught:
        clean_content(content, SecretPolicy.REJECT)
    assert caught.value.field == "content"
    assert [(f.kind.value, f.line) for f in caught.value.findings] == [("github_token", 15_001)]
    redacted = clean_content(content, SecretPolicy.REDACT)
    assert CRED not in redacted and redacted.count("\n") == content.count("\n")


def test_identifiers_are_named_by_field() -> None:
    check_identifiers([("sourceUrn", "doc:1"), ("tags[0]", "ops")])
    with pytest.raises(SensitiveContentError) as caught:
        check_identifiers([("sourceUrn", "doc:1"), ("tags[0]", "ops"), ("tags[1]", CRED)])
    assert caught.value.field == "tags[1]"
    assert caught.value.message.startswith("tags[1] holds credentials")
    assert CRED not in caught.value.message


def test_metadata_names_the_path_and_never_keeps_a_credential_key() -> None:
    with pytest.raises(SensitiveContentError) as caught:
        clean_metadata({"a": [{"b": f"x {CRED}"}]}, SecretPolicy.REJECT)
    assert caught.value.field == "metadata.a[0].b"
    assert clean_metadata({"a": [f"x {CRED}"]}, SecretPolicy.REDACT)["a"] != [f"x {CRED}"]
    with pytest.raises(SensitiveContentError):
        clean_metadata({CRED: 1}, SecretPolicy.REDACT)


@pytest.mark.parametrize(
    ("raw", "changed"),
    [
        ("user:alice", False),
        ("User:ALICE", False),
        ("  Person :  Bob   Smith ", False),
        ("jira::PAY-1", False),
        ("order:order_5", False),  # canonicalization is no character change
        ("person:o'brien\"$$x", True),
        ("file:a+b.py", True),
        ("user:ａｌｉｃｅ", True),  # fullwidth letters fold to ASCII  # noqa: RUF001
    ],
)
def test_which_normalizations_are_worth_a_warning(raw: str, changed: bool) -> None:
    assert changed_key(raw) is changed


def test_extraction_warns_once_per_changed_key() -> None:
    content = "relationships: ['user:o+b|knows|user:c', 'user:o+b|likes|user:d']\n"
    warnings = extract(content).warnings
    assert [(w.key, w.normalized_key, w.line) for w in warnings] == [("user:o+b", "user:o_b", 1)]

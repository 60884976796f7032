"""What extraction warns about (malformed lines, unclosed blocks, short-hand without a main
node, self-loops) and where a relationships block ends; the rest is kept."""

from __future__ import annotations

from kenning.domain.ingestion.extraction_warnings import ExtractionWarning
from kenning.domain.ingestion.references import (
    Relationship,
    extract,
)


def test_malformed_lines_become_warnings_and_the_rest_is_kept() -> None:
    content = (
        "first line\n"
        "relationships: [\n"
        '  "user:ann|KNOWS|user:bob",\n'
        '  "no separators here",\n'
        '  "user:ann|bad;type|user:bob",\n'
        '  unquoted junk, "user:bob|KNOWS|user:cy"\n'
        '  "user:cy|KNOWS|user:dan\n'
        "]\n"
        "later file:X.kt -[USES]-> 9:00\n"
    )
    result = extract(content)

    assert result.relationships == (
        Relationship("user:ann", "knows", "user:bob"),
        Relationship("user:bob", "knows", "user:cy"),
    )
    assert [(w.source, w.line) for w in result.warnings] == [
        ("content", 4),
        ("content", 5),
        ("content", 6),
        ("content", 7),
        ("content", 9),
    ]
    reasons = [w.reason for w in result.warnings]
    assert "not a relationship" in reasons[0]
    assert "edge type 'bad;type'" in reasons[1]
    assert reasons[2] == "expected a quoted string"
    assert reasons[3] == "unterminated string"
    assert "namespace" in reasons[4]
    assert result.warnings[0].excerpt == "no separators here"


def test_an_unclosed_block_warns_and_the_prose_after_it_is_still_read() -> None:
    content = 'relationships: [\n  "user:ann|KNOWS|user:bob"\nThen file:A.kt->uses->file:B.kt.\n'
    result = extract(content)
    assert result.relationships == (
        Relationship("user:ann", "knows", "user:bob"),
        Relationship("file:a.kt", "uses", "file:b.kt"),
    )
    assert len(result.warnings) == 1
    assert result.warnings[0].line == 1
    assert "not closed" in result.warnings[0].reason


def test_short_hand_without_a_main_node_is_a_warning() -> None:
    result = extract("", None, ["TASK-1|MENTIONS|user:john", "user:ann|KNOWS|user:bob"])
    assert result.relationships == (Relationship("user:ann", "knows", "user:bob"),)
    assert result.warnings == (
        ExtractionWarning(
            "relationships",
            1,
            "TASK-1|MENTIONS|user:john",
            "endpoint 'TASK-1' has no namespace and there is no main node key",
        ),
    )


def test_short_hand_in_prose_without_a_main_node_is_a_warning() -> None:
    result = extract("See TASK-1|MENTIONS|user:john here.")
    assert result.relationships == ()
    assert [w.line for w in result.warnings] == [1]
    assert "no main node key" in result.warnings[0].reason
    assert "user:john" in result.references


def test_a_self_loop_is_a_warning() -> None:
    result = extract("", None, ["order:order_5|SAME_AS|order:5"])
    assert result.relationships == ()
    assert "points at itself" in result.warnings[0].reason


def test_an_unclosed_block_ends_where_the_next_block_starts() -> None:
    content = (
        'relationships: [\n  "user:a|KNOWS|user:b"\n'
        "Prose in between.\n"
        'relationships: [\n  "user:c|KNOWS|user:d"\n]\n'
    )
    result = extract(content)
    assert result.relationships == (
        Relationship("user:a", "knows", "user:b"),
        Relationship("user:c", "knows", "user:d"),
    )
    assert [(w.line, w.reason) for w in result.warnings] == [
        (1, "relationships block is not closed with ']'")
    ]


def test_an_arrow_without_spaces_adds_no_stray_reference() -> None:
    found = extract("user:bob->OWNS->service:billing\nping user:ann-> later, file:a-b.kt")
    assert found.references == {"user:bob", "service:billing", "user:ann", "file:a-b.kt"}
    assert [str(r) for r in found.relationships] == ["user:bob|owns|service:billing"]

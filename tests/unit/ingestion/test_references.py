"""References and relationships extracted from content and from the relationships input."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.node_keys import canonicalize_key
from kenning.domain.ingestion.references import (
    Extraction,
    Relationship,
    apply_aliases,
    extract,
    parse_relationship,
)

SEED = """# TASK-123: Fix login bug
**Assignee:** John Doe
The issue affects UserService.kt authentication flow.
We need to modify the login() method.
relationships: [
  "TASK-123|ASSIGNED_TO|user:john",
  "TASK-123|AFFECTS|file:UserService.kt",
  "TASK-123|AFFECTS|method:UserService.login"
]
"""


def test_seed_example() -> None:
    result = extract(SEED, "jira:TASK-123")

    assert result.relationships == (
        Relationship("jira:task-123", "assigned_to", "user:john"),
        Relationship("jira:task-123", "affects", "file:userservice.kt"),
        Relationship("jira:task-123", "affects", "method:userservice.login"),
    )
    assert result.references == {
        "jira:task-123",
        "user:john",
        "file:userservice.kt",
        "method:userservice.login",
    }
    assert result.warnings == ()


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ("TASK-123|MENTIONS|user:john", ("jira:task-123", "mentions", "user:john")),
        ("file:Service.kt|RELATED_TO|TASK-123", ("file:service.kt", "related_to", "jira:task-123")),
        ("TASK-123->BLOCKS->TASK-7", ("jira:task-123", "blocks", "jira:task-7")),
    ],
)
def test_short_hand_endpoints_take_the_main_node_namespace(
    item: str, expected: tuple[str, str, str]
) -> None:
    result = extract("", "jira:TASK-123", [item])
    assert result.relationships == (Relationship(*expected),)
    assert result.warnings == ()


@pytest.mark.parametrize(
    "item",
    [
        "user:John|MODIFIED_BY|file:A.kt",
        "user:John->modifiedBy->file:A.kt",
        "user:John -[MODIFIED BY]-> file:A.kt",
        "  user:John | Modified-By | file:A.kt  ",
        "user::JOHN -> modified_by -> file::a.kt",
    ],
)
def test_every_format_gives_the_same_relationship(item: str) -> None:
    assert parse_relationship(item) == Relationship("user:john", "modified_by", "file:a.kt")


def test_formats_in_prose_are_found() -> None:
    content = (
        "We saw that file:A.kt -[DEPENDS ON]-> file:B.kt in the build.\n"
        "Also file:B.kt->imports->file:C.kt, and TASK-9|MENTIONS|user:ann.\n"
    )
    result = extract(content, "jira:TASK-9")
    assert result.relationships == (
        Relationship("file:a.kt", "depends_on", "file:b.kt"),
        Relationship("file:b.kt", "imports", "file:c.kt"),
        Relationship("jira:task-9", "mentions", "user:ann"),
    )
    assert result.warnings == ()


@pytest.mark.parametrize(
    "content",
    [
        "Name | Role | Team\n--- | --- | ---\nAnn | Dev | Core",
        "| a | b | c |",
        "The flow is login -> validate -> redirect.",
        "a|b|c|d",
    ],
)
def test_prose_without_a_node_reference_is_not_a_relationship(content: str) -> None:
    result = extract(content, "jira:TASK-1")
    assert result.relationships == ()
    assert result.warnings == ()


def test_relationships_block_tolerates_json_ish_syntax() -> None:
    content = (
        "Intro user:ann\n"
        "relationships: ['user:ann|KNOWS|user:bob', \"user:bob|LIKES|topic:Tea\",\n"
        '  "user:ann -[WROTE]-> doc:\\"quoted\\"",\n'
        "]\n"
        "Outro.\n"
    )
    result = extract(content)
    assert result.relationships == (
        Relationship("user:ann", "knows", "user:bob"),
        Relationship("user:bob", "likes", "topic:tea"),
        Relationship("user:ann", "wrote", "doc:_quoted_"),
    )
    # The quotes were replaced: a changed key is reported, not silently merged.
    assert [(w.key, w.normalized_key) for w in result.warnings] == [
        ('doc:"quoted"', "doc:_quoted_")
    ]


def test_relationships_are_canonical_and_deduplicated_in_first_seen_order() -> None:
    content = "order:order_5 -[CONTAINS]-> product:product_lego\n"
    items = [
        "user:a|KNOWS|user:b",
        "Order:5|contains|Product:Lego",
        "USER:A -> knows -> USER:B",
        "user:b|KNOWS|user:a",
    ]
    result = extract(content, None, items)
    assert result.relationships == (
        Relationship("order:5", "contains", "product:lego"),
        Relationship("user:a", "knows", "user:b"),
        Relationship("user:b", "knows", "user:a"),
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("See jira::JERV-123 and User:John.", {"jira:jerv-123", "user:john"}),
        ("# TASK-123: Fix login bug", set()),
        ("**Assignee:** John Doe", set()),
        ("Meet at 12:30, ratio 16:9, at 2024-01-15T12:30:45Z.", set()),
        ("Docs at https://example.com/user:john and file:///etc/hosts", set()),
        ("Mail mailto:ann@example.com or urn:isbn:123", set()),
        ("Call Vec::new() or std::collections::HashMap or std::vector<int>", set()),
        ("Note: the **file:A.kt** changed (see method:A.run()).", {"file:a.kt", "method:a.run"}),
        ("A ref `user:bob`, then order:order_7.", {"user:bob", "order:7"}),
    ],
)
def test_references_in_prose(content: str, expected: set[str]) -> None:
    result = extract(content)
    assert result.references == expected
    assert result.warnings == ()


def test_references_include_the_main_node_and_relationship_endpoints() -> None:
    result = extract("Plain text.", "Jira:TASK-1", ["TASK-1|MENTIONS|user:x"])
    assert result.references == {"jira:task-1", "user:x"}


def test_a_malformed_main_node_key_is_a_validation_error() -> None:
    with pytest.raises(ValidationError) as caught:
        extract("text", "no-namespace")
    assert caught.value.field == "mainNodeKey"


def test_parse_relationship_rejects_what_it_cannot_read() -> None:
    with pytest.raises(ValidationError, match="not a relationship"):
        parse_relationship("a|b")
    with pytest.raises(ValidationError, match="empty"):
        parse_relationship("|knows|user:b")


def test_apply_aliases_rekeys_and_drops_merged_self_loops() -> None:
    extraction = extract(
        "",
        None,
        ["user:jd|KNOWS|user:ann", "user:john|KNOWS|user:ann", "user:jd|SAME_AS|user:john"],
    )
    resolved = apply_aliases(extraction, {"user:jd": "user:john"})
    assert resolved.relationships == (Relationship("user:john", "knows", "user:ann"),)
    assert resolved.references == {"user:john", "user:ann"}


_ENDPOINT = st.from_regex(r"([A-Za-z]{1,6}::?)?[A-Za-z0-9 _.-]{1,12}", fullmatch=True)


@given(
    st.text(),
    st.one_of(st.none(), st.just("jira:TASK-1")),
    st.lists(
        st.one_of(
            st.text(max_size=40), st.builds("{}|{}|{}".format, _ENDPOINT, _ENDPOINT, _ENDPOINT)
        )
    ),
)
def test_extract_never_raises_and_emits_only_canonical_keys(
    content: str, main: str | None, items: list[str]
) -> None:
    result = extract(content, main, items)
    assert isinstance(result, Extraction)
    for key in result.references:
        assert canonicalize_key(key) == key
    for rel in result.relationships:
        assert {rel.from_key, rel.to_key} <= result.references
        assert rel.from_key != rel.to_key
    assert len(set(result.relationships)) == len(result.relationships)


@given(st.lists(st.sampled_from(["user:a|KNOWS|user:b", "user:b|KNOWS|user:c", "x"]), max_size=6))
def test_items_and_their_warnings_are_accounted_for(items: list[str]) -> None:
    result = extract("", None, items)
    assert len(result.warnings) == items.count("x")
    assert [w.line for w in result.warnings] == [i for i, t in enumerate(items, 1) if t == "x"]

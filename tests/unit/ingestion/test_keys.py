"""Node keys and edge types: normalization, canonicalization, parsing."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.node_keys import (
    MAX_KEY_LENGTH,
    NodeKey,
    canonicalize_key,
    normalize_edge_type,
    normalize_key,
    parse_key,
)

_SAFE_ID_CHAR = re.compile(r"[\w .\-/@#]")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("User:John", "user:john"),
        ("file:UserService.kt", "file:userservice.kt"),
        ("jira::JERV-123", "jira:jerv-123"),
        ("  Person:John \t\n  Doe  ", "person:john doe"),
        ("user : john", "user:john"),
        ("user:john!doe?", "user:john_doe_"),
        ("path:src/a_b-c.d@e#f", "path:src/a_b-c.d@e#f"),
        ("method:Foo::bar", "method:foo__bar"),
        ("my type:x", "my_type:x"),
        ("TASK-123", "task-123"),
        ("\uff35\uff33\uff25\uff32:\uff2aohn", "user:john"),  # fullwidth letters
        ("user:Jöhn", "user:jöhn"),
        ("user:a\x00b", "user:a_b"),
    ],
)
def test_normalize_key(raw: str, expected: str) -> None:
    assert normalize_key(raw) == expected


def test_keys_differing_only_in_case_are_one_node() -> None:
    assert normalize_key("User:John") == normalize_key("user:john") == normalize_key("USER::JOHN")


@given(st.text())
def test_normalize_key_is_idempotent(raw: str) -> None:
    once = normalize_key(raw)
    assert normalize_key(once) == once


@given(st.text())
def test_normalized_id_holds_only_safe_characters(raw: str) -> None:
    _, _, ident = normalize_key(raw).partition(":")
    assert all(_SAFE_ID_CHAR.fullmatch(c) for c in ident)
    assert ident == ident.strip()
    assert "  " not in ident


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("order:order_530798957", "order:530798957"),
        ("product:product_lego", "product:lego"),
        ("Order::ORDER_5", "order:5"),
        ("order:order:5", "order:5"),
        ("order:order_order_5", "order:5"),
        # Kept on purpose: a hyphenated id is a tracker id such as ORDER-5.
        ("order:order-5", "order:order-5"),
        # Kept on purpose: the rest reads as a file name or a path.
        ("file:file_utils.py", "file:file_utils.py"),
        ("dir:dir_src/main", "dir:dir_src/main"),
        ("order:order", "order:order"),
        ("order:order_", "order:order_"),
        ("order:orders_5", "order:orders_5"),
        ("user:john", "user:john"),
        ("no-namespace", "no-namespace"),
    ],
)
def test_canonicalize_key(key: str, expected: str) -> None:
    assert canonicalize_key(key) == expected


@given(st.text())
def test_canonicalize_key_is_idempotent_and_normalized(raw: str) -> None:
    once = canonicalize_key(raw)
    assert canonicalize_key(once) == once
    assert normalize_key(once) == once


@given(
    st.from_regex(r"[a-z]{1,8}", fullmatch=True), st.from_regex(r"[a-z0-9_]{1,12}", fullmatch=True)
)
def test_repeated_namespace_is_dropped_for_any_namespace(namespace: str, ident: str) -> None:
    canonical = canonicalize_key(f"{namespace}:{ident}")
    assert canonicalize_key(f"{namespace}:{namespace}_{ident}") == canonical


def test_parse_key_returns_canonical_parts() -> None:
    parsed = parse_key("Order::ORDER_530798957")
    assert parsed == NodeKey("order", "530798957")
    assert parsed.key == "order:530798957"
    assert str(parsed) == "order:530798957"


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("john", "needs a namespace"),
        (":john", "needs a namespace"),
        ("user:", "needs an id"),
        ("user:   ", "needs an id"),
        ("1user:x", "starts with a letter"),
        ("-user:x", "starts with a letter"),
        ("ユーザー:x", "ASCII"),
        ("n" * 65 + ":x", "at most 64"),
        ("user:" + "x" * MAX_KEY_LENGTH, "longer than 512"),
    ],
)
def test_parse_key_rejects_malformed_keys(raw: str, reason: str) -> None:
    with pytest.raises(ValidationError, match=reason) as caught:
        parse_key(raw)
    assert caught.value.field == "key"


def test_parse_key_accepts_the_longest_key() -> None:
    key = "user:" + "x" * (MAX_KEY_LENGTH - len("user:"))
    assert parse_key(key).key == key


def test_parse_key_names_the_given_field() -> None:
    with pytest.raises(ValidationError) as caught:
        parse_key("nonamespace", field="mainNodeKey")
    assert caught.value.field == "mainNodeKey"
    assert "nonamespace" in caught.value.message


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("MODIFIED_BY", "modified_by"),
        ("modifiedBy", "modified_by"),
        ("ModifiedBy", "modified_by"),
        ("RELATED TO", "related_to"),
        ("related-to", "related_to"),
        ("  depends on  ", "depends_on"),
        ("HTTPServerOf", "http_server_of"),
        ("hasV2Api", "has_v2_api"),
        ("MODIFIED_BY2X", "modified_by2x"),
        ("a__b", "a_b"),
        ("_affects_", "affects"),
        ("x" * 63, "x" * 63),
    ],
)
def test_normalize_edge_type(raw: str, expected: str) -> None:
    assert normalize_edge_type(raw) == expected


@pytest.mark.parametrize(
    "raw",
    ["", "   ", "___", "123abc", "relié", "a;DROP GRAPH", "a'b", "a`b", "a{b}", "x" * 64],
)
def test_normalize_edge_type_rejects_unsafe_names(raw: str) -> None:
    with pytest.raises(ValidationError) as caught:
        normalize_edge_type(raw)
    assert caught.value.field == "edgeType"
    assert repr(raw[:80]) in caught.value.message


@given(st.text(max_size=80))
def test_edge_types_are_whitelisted_and_idempotent(raw: str) -> None:
    try:
        edge_type = normalize_edge_type(raw)
    except ValidationError:
        return
    assert re.fullmatch(r"[a-z][a-z0-9_]{0,62}", edge_type)
    assert normalize_edge_type(edge_type) == edge_type

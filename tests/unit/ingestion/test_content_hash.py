"""The content hash: same indexed payload, same hash; any indexed change, new hash."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kenning.domain.access.scope import Scope
from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.content_hash import IndexedPayload, content_hash, normalize_content

BASE = IndexedPayload(
    source_urn="urn:jira:TASK-123",
    content="# TASK-123\nThe login is broken.\n",
    kind="ticket",
    main_node_key="jira:TASK-123",
    scope=Scope("acme", "web", "frontend"),
    knowledge_type="FACT",
    info_type="context",
    tags=("auth", "bug"),
    relationships=("TASK-123|AFFECTS|file:UserService.kt",),
    metadata={"priority": "high", "labels": ["a", "b"], "nested": {"x": 1, "y": 2}},
    source_kind="jira",
    connection_id="conn-1",
    external_id="10042",
)


def test_hash_is_a_sha256_hex_digest_and_stable() -> None:
    digest = content_hash(BASE)
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    assert content_hash(dataclasses.replace(BASE)) == digest


@pytest.mark.parametrize(
    "changes",
    [
        {"content": "# TASK-123\r\nThe login is broken.   \r\n\r\n"},
        {"content": "# TASK-123  \rThe login is broken.\t"},
        {"tags": ("bug", "auth", "bug", " auth ")},
        {"metadata": {"nested": {"y": 2, "x": 1}, "labels": ["a", "b"], "priority": "high"}},
        {"main_node_key": "JIRA::task-123"},
        {"relationships": ("jira:task-123 -[affects]-> FILE:userservice.kt",)},
    ],
)
def test_spelling_that_does_not_change_indexing_keeps_the_hash(changes: dict[str, Any]) -> None:
    assert content_hash(dataclasses.replace(BASE, **changes)) == content_hash(BASE)


@pytest.mark.parametrize(
    "changes",
    [
        {"source_urn": "urn:jira:TASK-124"},
        {"content": "# TASK-123\nThe login is fixed.\n"},
        {"content": "  # TASK-123\nThe login is broken.\n"},
        {"kind": "note"},
        {"main_node_key": "jira:TASK-124"},
        {"main_node_key": None},
        {"scope": Scope("acme", "web", "")},
        {"scope": Scope("acme", "", "frontend")},
        {"scope": Scope("other", "web", "frontend")},
        {"knowledge_type": "NOTE"},
        {"info_type": "skills"},
        {"tags": ("auth",)},
        {"tags": ("auth", "bug", "p1")},
        {"relationships": ()},
        {"relationships": ("TASK-123|BLOCKS|file:UserService.kt",)},
        {"relationships": ("not a relationship",)},
        {"metadata": {}},
        {"metadata": {**BASE.metadata, "priority": "low"}},
        {"metadata": {**BASE.metadata, "labels": ["b", "a"]}},
        {"source_kind": "confluence"},
        {"connection_id": "conn-2"},
        {"external_id": "10043"},
    ],
)
def test_any_indexed_change_changes_the_hash(changes: dict[str, Any]) -> None:
    assert content_hash(dataclasses.replace(BASE, **changes)) != content_hash(BASE)


def test_fields_do_not_bleed_into_each_other() -> None:
    left = dataclasses.replace(BASE, kind="a", info_type="bc")
    right = dataclasses.replace(BASE, kind="ab", info_type="c")
    assert content_hash(left) != content_hash(right)


def test_metadata_that_is_not_plain_json_is_a_validation_error() -> None:
    with pytest.raises(ValidationError) as caught:
        content_hash(dataclasses.replace(BASE, metadata={"when": object()}))
    assert caught.value.field == "metadata"
    with pytest.raises(ValidationError):
        content_hash(dataclasses.replace(BASE, metadata={"ratio": float("nan")}))


def test_normalize_content() -> None:
    assert normalize_content("a  \r\nb\t\rc\n\n  \n") == "a\nb\nc"
    assert normalize_content("  lead\n") == "  lead"


_WORD = st.text(alphabet="abcxyz-_:|", min_size=1, max_size=8)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
_PAYLOADS = st.builds(
    IndexedPayload,
    source_urn=_WORD,
    content=st.text(min_size=1, max_size=60),
    kind=_WORD,
    main_node_key=st.none() | st.builds("{}:{}".format, st.sampled_from(["jira", "user"]), _WORD),
    scope=st.sampled_from(
        [Scope(), Scope("acme"), Scope("acme", "web", "fe"), Scope("acme", "", "fe")]
    ),
    knowledge_type=st.sampled_from(["FACT", "NOTE", "EPISODIC"]),
    info_type=_WORD,
    tags=st.lists(_WORD, max_size=4).map(tuple),
    relationships=st.lists(
        st.builds("user:{}|KNOWS|user:{}x".format, _WORD, _WORD), max_size=3
    ).map(tuple),
    metadata=st.dictionaries(st.text(max_size=6), _JSON, max_size=4),
)


@given(_PAYLOADS, st.randoms())
def test_the_same_payload_always_hashes_the_same(payload: IndexedPayload, rng: Any) -> None:
    tags = list(payload.tags)
    rng.shuffle(tags)
    relationships = list(payload.relationships)
    rng.shuffle(relationships)
    reordered = dataclasses.replace(
        payload,
        tags=tuple(tags),
        relationships=tuple(relationships),
        metadata=dict(reversed(list(payload.metadata.items()))),
    )
    assert content_hash(reordered) == content_hash(payload)


_CHANGES = {
    "source_urn": lambda p: dataclasses.replace(p, source_urn=p.source_urn + "!"),
    "content": lambda p: dataclasses.replace(p, content=p.content + "!"),
    "kind": lambda p: dataclasses.replace(p, kind=p.kind + "!"),
    "main_node_key": lambda p: dataclasses.replace(
        p, main_node_key=None if p.main_node_key else "jira:other"
    ),
    "scope": lambda p: dataclasses.replace(
        p, scope=Scope("zzz") if p.scope != Scope("zzz") else Scope()
    ),
    "knowledge_type": lambda p: dataclasses.replace(p, knowledge_type="PROCEDURE"),
    "info_type": lambda p: dataclasses.replace(p, info_type=p.info_type + "!"),
    "tags": lambda p: dataclasses.replace(p, tags=(*p.tags, "brand-new-tag")),
    "relationships": lambda p: dataclasses.replace(
        p, relationships=(*p.relationships, "user:a|NEW_EDGE|user:b")
    ),
    "metadata": lambda p: dataclasses.replace(
        p, metadata={**p.metadata, "longer-than-any-key": True}
    ),
    "source_kind": lambda p: dataclasses.replace(p, source_kind=p.source_kind + "!"),
    "connection_id": lambda p: dataclasses.replace(p, connection_id=p.connection_id + "!"),
    "external_id": lambda p: dataclasses.replace(p, external_id=p.external_id + "!"),
}


def test_every_field_has_a_change_in_the_property_test() -> None:
    assert set(_CHANGES) == {f.name for f in dataclasses.fields(IndexedPayload)}


@given(_PAYLOADS, st.sampled_from(sorted(_CHANGES)))
def test_changing_any_indexed_field_changes_the_hash(payload: IndexedPayload, name: str) -> None:
    assert content_hash(_CHANGES[name](payload)) != content_hash(payload)

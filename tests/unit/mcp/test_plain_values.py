"""``plain``: domain results as the JSON the GraphQL API would give, whatever the nesting,
with the per-class field table cached after the first value of a class."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum, StrEnum

from kenning.mcp.calls import plain


class Kind(Enum):
    NOTE = "note"


class Mode(StrEnum):
    KEYWORD = "KEYWORD"


@dataclass(frozen=True)
class Inner:
    chunk_id: str
    observed_at: datetime | None
    kind: Kind


@dataclass(frozen=True)
class Outer:
    search_mode: Mode
    hit_list: list[Inner]
    extra_fields: dict[object, object] = field(default_factory=dict)
    is_exact: bool = False
    top_score: float = 0.5


def test_nested_results_take_camel_case_keys_and_plain_values() -> None:
    at = datetime(2026, 1, 31, 9, tzinfo=UTC)
    value = Outer(
        Mode.KEYWORD,
        [Inner("c1", at, Kind.NOTE), Inner("c2", None, Kind.NOTE)],
        {"tags": ("a", "b"), "when": at, 3: frozenset({1})},
        True,
    )
    expected = {
        "searchMode": "KEYWORD",
        "hitList": [
            {"chunkId": "c1", "observedAt": "2026-01-31T09:00:00+00:00", "kind": "note"},
            {"chunkId": "c2", "observedAt": None, "kind": "note"},
        ],
        "extraFields": {"tags": ["a", "b"], "when": "2026-01-31T09:00:00+00:00", "3": [1]},
        "isExact": True,
        "topScore": 0.5,
    }
    # The second conversion reads the cached field tables: the same answer.
    assert plain(value) == expected
    assert plain(value) == expected


def test_a_dataclass_class_itself_is_not_taken_for_a_value() -> None:
    assert plain(Inner) is Inner
    assert plain([None, 1, "x", 2.5, False]) == [None, 1, "x", 2.5, False]

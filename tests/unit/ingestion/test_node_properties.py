"""What a node property change is, and the checks of ``updateNode``'s ``set``/``unset``:
each bad input is a typed error naming its field, credentials are refused or redacted as in
node properties, and ingests name the source that states their nodes' properties."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from kenning.domain.access.scope import Scope
from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion.graph_items import GraphRequest
from kenning.domain.ingestion.ingest_graph import ingest_graph
from kenning.domain.ingestion.node_properties import (
    NodeProvenance,
    PropertyChange,
    check_patch,
    property_changes,
)
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeStore
from tests.support.ingest_deps import deps

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def test_changes_are_the_names_whose_json_differs_scope_properties_aside() -> None:
    old = {"key": "service:a", "client": "acme", "tier": 1, "team": "a", "on": True, "n": 1}
    new = {"key": "service:a", "client": "beta", "tier": 2, "on": 1, "n": 1, "tags": ["x"]}
    assert property_changes(old, new) == (
        PropertyChange("on", True, 1),
        PropertyChange("tags", None, ["x"]),
        PropertyChange("team", "a", None, removed=True),
        PropertyChange("tier", 1, 2),
    )
    assert property_changes(new, new) == ()


def test_a_patch_keeps_what_it_sets_and_each_name_it_removes_once() -> None:
    patch = check_patch(
        {"tier": 2, "tags": ["a", 1, True], "score": 0.5}, ["x", "x", "y"], SecretPolicy.REJECT
    )
    assert dict(patch.set) == {"tier": 2, "tags": ["a", 1, True], "score": 0.5}
    assert patch.unset == ("x", "y")
    assert check_patch(None, ["gone"], SecretPolicy.REJECT).unset == ("gone",)


@pytest.mark.parametrize(
    ("values", "unset", "field"),
    [
        (None, None, "set"),
        ({}, [], "set"),
        ("tier=2", None, "set"),
        ({"type": "x"}, None, "set"),
        ({"": 1}, None, "set"),
        ({"a\nb": 1}, None, "set"),
        ({"x" * 201: 1}, None, "set"),
        (None, ["ok", "group"], "unset[1]"),
        (None, [" padded"], "unset[0]"),
        ({"tier": {"a": 1}}, None, "set.tier"),
        ({"tier": None}, None, "set.tier"),
        ({"tier": float("nan")}, None, "set.tier"),
        ({"tags": [["nested"]]}, None, "set.tags"),
        ({"tier": 2}, ["other", "tier"], "unset[1]"),
    ],
)
def test_bad_input_names_its_field(values: Any, unset: list[str] | None, field: str) -> None:
    with pytest.raises(ValidationError) as raised:
        check_patch(values, unset, SecretPolicy.REJECT)
    assert raised.value.field == field and not isinstance(raised.value, TooLargeError)


def test_too_many_names_or_bytes_is_too_large() -> None:
    with pytest.raises(TooLargeError) as many:
        check_patch(
            {f"p{i}": i for i in range(60)}, [f"q{i}" for i in range(41)], SecretPolicy.REJECT
        )
    with pytest.raises(TooLargeError) as big:
        check_patch({"note": "x" * 64_001}, None, SecretPolicy.REJECT)
    assert many.value.field == big.value.field == "set"


def test_credentials_are_refused_or_redacted_by_the_policy() -> None:
    with pytest.raises(SensitiveContentError) as refused:
        check_patch({"token": TOKEN}, None, SecretPolicy.REJECT)
    assert refused.value.field == "set.token"
    redacted = check_patch({"token": TOKEN}, None, SecretPolicy.REDACT)
    assert TOKEN not in str(redacted.set["token"])


async def test_an_ingest_names_the_source_that_states_its_nodes() -> None:
    store, at = FakeStore(), datetime(2025, 1, 15, tzinfo=UTC)
    metadata = {"service:billing": {"type": "service", "properties": {"tier": 1}}}
    request = GraphRequest("kb:services", Scope("acme"), metadata=metadata, observed_at=at)
    await ingest_graph(request, deps(store, FakeEmbedder()))
    assert store.provenances == [NodeProvenance("kb:services", at)]

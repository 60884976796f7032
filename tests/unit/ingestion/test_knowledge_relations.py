"""A knowledge file's ``relations`` section on fakes: the spellings it accepts, a bad
declaration refusing the file with its path, who may declare, and the declarations reaching
the write with the caller's key."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from kenning.domain.access.principal import Principal, Role
from kenning.domain.access.scope import Scope
from kenning.domain.errors import ScopeError, TooLargeError, ValidationError
from kenning.domain.ingestion.knowledge_file import load_knowledge
from kenning.domain.ingestion.knowledge_relations import read_relations
from kenning.domain.ingestion.relations import MAX_RELATIONS, Declaration, Declarations
from kenning.domain.ingestion.secrets.findings import SensitiveContentError
from kenning.domain.ingestion.secrets.scan import SecretPolicy
from kenning.domain.ingestion.validity import Cardinality
from tests.fakes.embedder import FakeEmbedder
from tests.fakes.knowledge_store import FakeStore
from tests.support.ingest_deps import deps

ONE, MANY = Cardinality.ONE, Cardinality.MANY
AGENT = Principal("acme-agent", Scope("acme"), Role.AGENT)
# A generated-looking AWS key id (the documented example is a placeholder and passes).
CREDENTIAL = "AKIAIOSFODNN7EXAMPLF"
PIECE = {"id": "p1", "content": "Billing stores invoices in Postgres."}
EDGE = {
    "source": "service:billing",
    "relation": "database",
    "target": "db:postgres",
    "evidence": ["p1"],
}


def file(*relations: object) -> dict[str, Any]:
    nodes = [{"id": "service:billing"}, {"id": "db:postgres"}]
    return {
        "pieces": [PIECE],
        "graph": {"nodes": nodes, "edges": [EDGE]},
        "relations": list(relations),
    }


def test_each_spelling_of_a_declaration_is_read() -> None:
    assert read_relations(
        [
            {"edgeType": "DATABASE", "cardinality": "one", "description": "its database"},
            {"edge_type": "depends on", "cardinality": "MANY"},
            {"type": "ownedBy", "cardinality": " One "},
        ]
    ) == (
        Declaration("database", ONE, "its database"),
        Declaration("depends_on", MANY),
        Declaration("owned_by", ONE),
    )
    assert read_relations(None) == read_relations([]) == ()


@pytest.mark.parametrize(
    ("section", "field"),
    [
        ({"edgeType": "x"}, "json.relations"),
        ([["x"]], "json.relations[0]"),
        ([{"edgeType": "db", "cardinality": "ONE", "colour": 1}], "json.relations[0].colour"),
        ([{"edgeType": "db", "type": "db", "cardinality": "ONE"}], "json.relations[0].type"),
        ([{"cardinality": "ONE"}], "json.relations[0].edgeType"),
        ([{"edgeType": "db", "cardinality": "SOME"}], "json.relations[0].cardinality"),
        ([{"edgeType": "db"}], "json.relations[0].cardinality"),
        (
            [{"edgeType": "db", "cardinality": "ONE"}, {"edge_type": "1st", "cardinality": "ONE"}],
            "json.relations[1].edge_type",
        ),
        (
            [{"edgeType": "db", "cardinality": "ONE"}, {"type": "DB", "cardinality": "MANY"}],
            "json.relations[1].edgeType",
        ),
        (
            [{"edgeType": "db", "cardinality": "ONE", "description": "a\x00b"}],
            "json.relations[0].description",
        ),
        (
            [{"edgeType": "db", "cardinality": "ONE", "description": 7}],
            "json.relations[0].description",
        ),
    ],
)
def test_a_bad_declaration_names_its_path(section: object, field: str) -> None:
    with pytest.raises(ValidationError) as raised:
        read_relations(section)
    assert raised.value.field == field


def test_a_file_declares_at_most_as_many_relations_as_a_client() -> None:
    many = [{"edgeType": f"r{i}", "cardinality": "MANY"} for i in range(MAX_RELATIONS + 1)]
    with pytest.raises(TooLargeError) as raised:
        read_relations(many)
    assert raised.value.field == "json.relations"


async def test_the_declarations_reach_the_write_as_the_callers() -> None:
    store = FakeStore()
    declared = file({"edgeType": "database", "cardinality": "ONE", "description": "its db"})
    loaded = await load_knowledge(
        declared, "kb:billing", Scope("acme", "web"), deps(store, FakeEmbedder()), caller=AGENT
    )
    assert loaded.outcome.status.value == "INDEXED"
    assert store.declared == [
        Declarations((Declaration("database", ONE, "its db"),), "acme-agent", "json.relations")
    ]
    # The same items declared otherwise are another file, not a duplicate.
    changed = file({"edgeType": "database", "cardinality": "MANY", "description": "its db"})
    again = await load_knowledge(
        changed, "kb:billing", Scope("acme", "web"), deps(store, FakeEmbedder()), caller=AGENT
    )
    assert again.outcome.status.value == "INDEXED"
    assert again.outcome.content_hash != loaded.outcome.content_hash
    assert store.declared[1].relations == (Declaration("database", MANY, "its db"),)


@pytest.mark.parametrize(
    "caller",
    [
        Principal("web", Scope("acme", "web"), Role.AGENT),
        Principal("ui", Scope("acme"), Role.UI),
        Principal("globex", Scope("globex"), Role.AGENT),
        None,
    ],
    ids=["project-key", "ui-key", "other-client", "no-caller"],
)
async def test_only_a_key_that_may_define_relations_declares_them(
    caller: Principal | None,
) -> None:
    store = FakeStore()
    declared = file({"edgeType": "database", "cardinality": "ONE"})
    with pytest.raises(ScopeError):
        await load_knowledge(
            declared, "kb:b", Scope("acme"), deps(store, FakeEmbedder()), caller=caller
        )
    assert store.writes == 0 and store.declared == []


async def test_a_credential_in_a_declaration_follows_the_secret_policy() -> None:
    store = FakeStore()
    leaked = file({"edgeType": "database", "cardinality": "ONE", "description": CREDENTIAL})
    with pytest.raises(SensitiveContentError) as raised:
        await load_knowledge(
            leaked, "kb:b", Scope("acme"), deps(store, FakeEmbedder()), caller=AGENT
        )
    assert raised.value.field == "relations[0].description" and store.writes == 0
    redacting = dataclasses.replace(deps(store, FakeEmbedder()), secret_policy=SecretPolicy.REDACT)
    await load_knowledge(leaked, "kb:b", Scope("acme"), redacting, caller=AGENT)
    [stored] = store.declared[0].relations
    assert CREDENTIAL not in stored.description


async def test_a_file_of_declarations_only_is_refused_as_empty() -> None:
    store = FakeStore()
    only = {"relations": [{"edgeType": "database", "cardinality": "ONE"}]}
    with pytest.raises(ValidationError) as raised:
        await load_knowledge(
            only, "kb:schema", Scope("acme"), deps(store, FakeEmbedder()), caller=AGENT
        )
    assert raised.value.field == "json" and store.declared == []

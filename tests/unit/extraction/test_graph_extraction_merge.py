"""Merge rules: entities become the keys references would, aliases apply, duplicates merge,
bad relations are dropped with a warning, edges cite their chunks with provenance."""

from __future__ import annotations

from kenning.domain.extraction.graph_extraction import ChunkExtraction, Entity, Relation
from kenning.domain.extraction.graph_merge import (
    extracted_by,
    extracted_keys,
    merge_extractions,
)
from kenning.domain.ingestion.references import extract


def found(entities: list[tuple[str, str, str]], relations: list[tuple[str, str, str, float]]) -> (
    ChunkExtraction
):  # fmt: skip
    return ChunkExtraction(
        entities=[Entity(type=t, name=n, description=d) for t, n, d in entities],
        relations=[Relation(source=s, type=r, target=e, confidence=c) for s, r, e, c in relations],
    )


def test_entity_keys_are_the_keys_a_written_reference_would_get() -> None:
    answer = found([("Order", "ORDER_530798957", ""), ("User", "John  Doe", "")], [])
    written = extract("see Order::ORDER_530798957 and user:john doe").references
    assert extracted_keys([("c1", answer)]) == {"order:530798957", "user:john doe"}
    assert "order:530798957" in written


def test_duplicates_merge_and_the_first_description_wins() -> None:
    one = found([("service", "Billing", "Bills."), ("team", "core", "")], [])
    two = found([("service", "billing", "Other."), ("team", "Core", "The core team.")], [])
    graph = merge_extractions([("c1", one), ("c2", two)], {}, model="m")
    nodes = {n.key: n for n in graph.nodes}
    assert set(nodes) == {"service:billing", "team:core"}
    assert nodes["service:billing"].defaults == {"description": "Bills."}
    assert nodes["team:core"].defaults == {"description": "The core team."}
    # A model's description is a default, never a property that would overwrite a writer's.
    assert all(not n.properties for n in graph.nodes)


def test_edges_cite_every_chunk_stating_them_with_provenance_and_the_best_confidence() -> None:
    one = found([("service", "billing", ""), ("db", "pg", "")], [("billing", "USES", "pg", 0.4)])
    two = found([("service", "Billing", ""), ("db", "PG", "")], [("billing", "uses", "pg", 0.8)])
    graph = merge_extractions([("c1", one), ("c2", two)], {}, model="qwen")
    [edge] = graph.edges
    assert (edge.from_key, edge.edge_type, edge.to_key) == ("service:billing", "uses", "db:pg")
    assert edge.evidence_chunk_ids == ("c1", "c2")
    assert edge.properties == {"extractedBy": "llm:qwen", "confidence": 0.8}
    assert extracted_by("qwen") == "llm:qwen"


def test_aliases_apply_and_a_relation_they_turn_into_a_self_loop_is_dropped() -> None:
    answer = found(
        [("service", "billing", ""), ("service", "invoicing", ""), ("team", "core", "")],
        [("billing", "calls", "invoicing", 0.9), ("core", "owns", "invoicing", 0.7)],
    )
    graph = merge_extractions([("c1", answer)], {"service:invoicing": "service:billing"}, model="m")
    assert [(e.from_key, e.edge_type, e.to_key) for e in graph.edges] == [
        ("team:core", "owns", "service:billing")
    ]
    assert {n.key for n in graph.nodes} == {"service:billing", "team:core"}
    assert any("self-loop" in w for w in graph.warnings)


def test_relations_to_unknown_or_unusable_entities_are_dropped_with_a_warning() -> None:
    # Cached answers skip validation's guard only by construction; the merge holds anyway.
    answer = ChunkExtraction.model_construct(
        entities=[
            Entity(type="service", name="billing"),
            Entity.model_construct(type="service", name="", description=""),
        ],
        relations=[
            Relation(source="billing", type="calls", target="ghost", confidence=0.5),
            Relation.model_construct(source="billing", type="calls", target="", confidence=0.5),
        ],
    )
    graph = merge_extractions([("c9", answer)], {}, model="m")
    assert graph.edges == ()
    # The unusable entity, then each relation.
    assert len(graph.warnings) == 3 and all("c9" in w for w in graph.warnings)
    assert [n.key for n in graph.nodes] == ["service:billing"]


def test_relations_only_match_entities_of_their_own_chunk() -> None:
    one = found([("service", "billing", "")], [])
    two = ChunkExtraction.model_construct(
        entities=[Entity(type="db", name="pg")],
        relations=[Relation(source="billing", type="uses", target="pg", confidence=1.0)],
    )
    graph = merge_extractions([("c1", one), ("c2", two)], {}, model="m")
    assert graph.edges == () and graph.warnings

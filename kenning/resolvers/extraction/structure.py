"""Resolver of `structureKnowledge`: the input in, ``structure_asked``
(``kenning.domain.extraction.structure``, as MCP's ``structure_knowledge`` calls it, with
``Runtime.structure_ports``), the outcome out."""

from __future__ import annotations

from strawberry.scalars import JSON

from kenning.domain.extraction.structure import StructureAsk, StructureOutcome, structure_asked
from kenning.graphql.context import Info
from kenning.resolvers.access.scope import caller, to_scope
from kenning.resolvers.errors import error_members
from kenning.resolvers.extraction.check_ins import to_check_in
from kenning.resolvers.extraction.model_errors import model_error_members
from kenning.resolvers.ingestion.ingest_graph import graph_success
from kenning.schema.extraction.structure import (
    StructureKnowledgeInput,
    StructureKnowledgeResult,
    StructureKnowledgeSuccess,
)


def to_success(outcome: StructureOutcome) -> StructureKnowledgeSuccess:
    """The GraphQL form of a structuring call's outcome."""
    return StructureKnowledgeSuccess(
        check_in=to_check_in(outcome.check_in),
        source_urn=outcome.source_urn,
        knowledge=JSON(dict(outcome.knowledge)),
        loaded=graph_success(outcome.loaded) if outcome.loaded is not None else None,
    )


@model_error_members
@error_members
async def resolve_structure_knowledge(
    info: Info, input: StructureKnowledgeInput
) -> StructureKnowledgeResult:
    """Structure free text with the model, then load it (unless a dry run); a check-in
    records every call the model answered."""
    asked = StructureAsk(
        input.text, input.hints, input.dry_run, input.source_urn, to_scope(input.scope)
    )
    ports = info.context.runtime.structure_ports()
    return to_success(await structure_asked(caller(info), asked, ports))

"""Resolver of `structureKnowledge`, and the ports its use case runs with (MCP's
``structure_knowledge`` tool builds them here too)."""

from __future__ import annotations

from strawberry.scalars import JSON

from kenning.domain.extraction.structure import (
    StructureOutcome,
    StructureRequest,
    structure_knowledge,
)
from kenning.resolvers.access.scope import principal, stored_write_scope
from kenning.resolvers.context import Info
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
        check_in=to_check_in(outcome.check_in), source_urn=outcome.source_urn,
        knowledge=JSON(dict(outcome.knowledge)),
        loaded=graph_success(outcome.loaded) if outcome.loaded is not None else None,
    )  # fmt: skip


@model_error_members
@error_members
async def resolve_structure_knowledge(
    info: Info, input: StructureKnowledgeInput
) -> StructureKnowledgeResult:
    """Structure free text with the model, then load it (unless a dry run); a check-in
    records every call the model answered."""
    caller = principal(info)
    request = StructureRequest(
        text=input.text, scope=await stored_write_scope(info, input.scope),
        caller=caller.key_id, hints=input.hints, dry_run=input.dry_run,
        source_urn=input.source_urn,
    )  # fmt: skip
    runtime = info.context.runtime
    return to_success(await structure_knowledge(request, runtime.structure_ports()))

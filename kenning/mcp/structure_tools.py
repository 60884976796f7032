"""The tool that structures an expert's free text into knowledge: ``structure_knowledge``
calls the use case ``structureKnowledge`` calls (``kenning/resolvers/extraction/
structure.py``): ``kenning.domain.extraction.structure.structure_asked``, with the same
ports (``Runtime.structure_ports``), secret policy and check-in.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from kenning.domain.extraction.structure import StructureAsk, StructureOutcome, structure_asked
from kenning.mcp.calls import (
    NarrowScope,
    ToolContext,
    caller,
    domain_errors,
    plain,
    to_scope,
)
from kenning.mcp.tool_spec import ToolSpec


@domain_errors
async def structure_knowledge_tool(
    ctx: ToolContext,
    text: Annotated[str, Field(description="The expert's free text to structure.")],
    hints: Annotated[
        str | None, Field(description="Guidance for the model, e.g. the team or entity types.")
    ] = None,
    dry_run: Annotated[
        bool, Field(description="Only show the structure: load nothing (still checked in).")
    ] = False,
    source_urn: Annotated[
        str | None, Field(description="What it is loaded as; loading it again replaces it.")
    ] = None,
    scope: NarrowScope = None,
) -> dict[str, Any]:
    """Structure ``text`` into pieces and graph with the model, then load it (unless dry)."""
    who = caller(ctx)
    asked = StructureAsk(text, hints, dry_run, source_urn, to_scope(scope))
    return _structured(await structure_asked(who.scoped, asked, who.runtime.structure_ports()))


def _structured(outcome: StructureOutcome) -> dict[str, Any]:
    record, loaded = outcome.check_in.record, outcome.loaded
    answer: dict[str, Any] = {
        "checkInId": record.id,
        "status": record.status.value,
        "model": record.model,
        "promptVersion": record.prompt_version,
        "attempts": plain(record.attempts),
        "sourceUrn": outcome.source_urn,
        "knowledge": dict(outcome.knowledge),
        "loaded": None,
    }
    if loaded is not None:
        answer["loaded"] = {
            "status": loaded.outcome.status.value,
            "chunkIds": list(loaded.outcome.chunk_ids),
            "nodes": list(loaded.outcome.nodes),
            "edges": plain(loaded.outcome.edges),
            "rejected": plain(loaded.rejected),
        }
    return answer


TOOLS = (
    ToolSpec(
        "structure_knowledge",
        structure_knowledge_tool,
        "Turn free text (an expert's notes, an explanation) into knowledge: a model splits it "
        "into pieces (facts, instructions, preferences) and a graph of entities and relations, "
        "each relation citing the pieces that state it, and it is loaded so search and "
        "get_context find it. dry_run shows the structure without loading it. Never include "
        "credentials: text with secrets is refused.",
        read_only=False,
    ),
)

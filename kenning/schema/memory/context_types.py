"""``agentContext``'s answer in GraphQL types (``kenning.schema.retrieval.evidence``), from
the use case's (``kenning.domain.memory.context_request.ReadContext``)."""

from __future__ import annotations

import strawberry

from kenning.domain.memory.context_request import ReadContext
from kenning.domain.retrieval import agent_context as domain
from kenning.schema.graph.types import Node
from kenning.schema.retrieval.evidence import AgentContext, ContextLine, ContextSection


def agent_context_type(found: ReadContext) -> AgentContext:
    """The GraphQL form of an assembled context; its user node read as the reader."""
    context = found.context
    return AgentContext(
        entity=Node.from_view(context.entity, found.reader) if context.entity else None,
        sections=[section_type(section) for section in context.sections],
        text=context.text,
    )


def section_type(section: domain.ContextSection) -> ContextSection:
    """The GraphQL form of one section."""
    return ContextSection(
        info_type=section.info_type,
        lines=[
            ContextLine(
                text=line.text,
                score=line.score,
                chunk_ids=[strawberry.ID(c) for c in line.chunk_ids],
                block=line.block.value if line.block else None,
                tags=list(line.tags),
            )
            for line in section.lines
        ],
        omitted=section.omitted,
        text=section.text,
    )

"""The resolver of `agentContext`."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import strawberry

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.validity import as_of as read_time
from kenning.domain.memory.agent_context import When
from kenning.domain.memory.context_request import context_for_keys
from kenning.domain.retrieval import agent_context as context_domain
from kenning.resolvers.access.scope import read_scope
from kenning.resolvers.context import Info
from kenning.resolvers.errors import error_members
from kenning.schema.access.scope import NarrowScope
from kenning.schema.graph.types import Node
from kenning.schema.retrieval.evidence import (
    AgentContext,
    AgentContextResult,
    ContextLine,
    ContextSection,
)


@error_members
async def resolve_agent_context(
    info: Info,
    query: str,
    entity_key: Annotated[
        str | None, strawberry.argument(description="The user entity (same as userKey).")
    ] = None,
    limit: int = 10,
    scope: NarrowScope = None,
    user_key: Annotated[
        str | None, strawberry.argument(description="The user entity: its profile.")
    ] = None,
    entity_keys: Annotated[
        list[str] | None, strawberry.argument(description="Other entities (at most 20).")
    ] = None,
    budget: Annotated[
        int | None, strawberry.argument(description="Characters per section (rules exempt).")
    ] = None,
    as_of: Annotated[
        datetime | None,
        strawberry.argument(
            description="Answer as things were then: edges valid and pieces current at that "
            "time. A time to come answers as now."
        ),
    ] = None,
    include_history: Annotated[
        bool,
        strawberry.argument(
            description="Also list what no longer holds (ended edges, superseded pieces), "
            "each with its validity, in a `history` section. Never stated as current."
        ),
    ] = False,
) -> AgentContextResult:
    """What an agent should know for `query`: rules, the user, pieces, graph, session."""
    runtime = info.context.runtime
    now = datetime.now(UTC)
    when = When(read_time(as_of, now), include_history)
    reader = read_scope(info, scope)
    if user_key is not None and entity_key is not None:
        raise ValidationError(
            "give userKey or entityKey (the same role), not both", field="entityKey"
        )
    user = (user_key, "userKey") if user_key is not None else None
    user = (entity_key, "entityKey") if entity_key is not None else user
    result = await context_for_keys(
        query, user=user, entity_keys=entity_keys or [], limit=limit, budget=budget,
        reader=reader, now=now, ports=runtime.memory_ports(), aliases=runtime.aliases,
        when=when,
    )  # fmt: skip
    return AgentContext(
        entity=Node.from_view(result.entity, reader) if result.entity else None,
        sections=[_section(section) for section in result.sections],
        text=result.text,
    )


def _section(section: context_domain.ContextSection) -> ContextSection:
    return ContextSection(
        info_type=section.info_type,
        lines=[
            ContextLine(text=line.text, score=line.score,
                        chunk_ids=[strawberry.ID(c) for c in line.chunk_ids])
            for line in section.lines
        ],
        omitted=section.omitted,
        text=section.text,
    )  # fmt: skip

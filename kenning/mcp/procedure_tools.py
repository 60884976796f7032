"""The ``save_procedure`` and ``record_procedure_run`` tools: procedural memory written as
GraphQL's ``saveProcedure`` and ``recordProcedureRun`` write it, through the same use cases
(``save_for`` and ``run_for`` of ``kenning.domain.memory.procedure_request``; the resolvers
are in ``kenning/resolvers/memory/procedures.py``).

Procedures serve the whole client: only a client-wide key (an agent's) changes them, which
``procedure_client`` decides on every face.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from kenning.domain.memory.procedure_request import (
    ProcedureRequest,
    SaveRequest,
    run_for,
    save_for,
)
from kenning.domain.memory.procedures import Procedure, ProcedureSource, ProcedureStep
from kenning.mcp.calls import NarrowScope, ToolContext, caller, domain_errors, plain
from kenning.mcp.memory_arguments import AgentId, Reason, UserKey, request_fields
from kenning.mcp.tool_spec import ToolSpec


class StepArg(BaseModel):
    """One step of a procedure."""

    agent: Annotated[str, Field(description="Which agent does it, e.g. 'deployer'.")]
    action: Annotated[str, Field(description="What it does, e.g. 'run_pipeline'.")]
    parameters: Annotated[
        dict[str, Any], Field(description="A JSON object (never credentials).")
    ] = Field(default_factory=dict)


TriggerPattern = Annotated[
    str, Field(description="What a request looks like when it applies (1-500 characters).")
]
Description = Annotated[str, Field(description="What the procedure achieves.")]
Steps = Annotated[list[StepArg], Field(description="1-50 steps, in order.")]
Source = Annotated[
    ProcedureSource, Field(description="LEARNED (you kept what worked) or USER_DEFINED.")
]
ProcedureId = Annotated[str, Field(description="The procedure's id (find_procedures answers it).")]
Success = Annotated[bool, Field(description="Whether this run achieved its goal.")]


def procedure_answer(procedure: Procedure) -> dict[str, Any]:
    """A procedure as GraphQL's ``Procedure`` names its fields."""
    answer: dict[str, Any] = plain(procedure)
    answer["successRate"] = procedure.success_rate
    return answer


@domain_errors
async def save_procedure_tool(
    ctx: ToolContext,
    trigger_pattern: TriggerPattern,
    description: Description,
    steps: Steps,
    source: Source = ProcedureSource.LEARNED,
    scope: NarrowScope = None,
    user_key: UserKey = None,
    agent_id: AgentId = None,
    reason: Reason = None,
) -> dict[str, Any]:
    """Store a procedure for the key's client; the same trigger, source and user again
    makes its next version."""
    fields = request_fields(locals())
    fields["steps"] = [ProcedureStep(s.agent, s.action, s.parameters) for s in steps]
    who = caller(ctx)
    saved = await save_for(who.scoped, SaveRequest(**fields), who.runtime.procedure_deps())
    return procedure_answer(saved)


@domain_errors
async def record_procedure_run_tool(
    ctx: ToolContext, id: ProcedureId, success: Success, scope: NarrowScope = None
) -> dict[str, Any]:
    """Count one run of a procedure: usage, last use and success rate change at once."""
    request = ProcedureRequest(**request_fields(locals()))
    who = caller(ctx)
    return procedure_answer(await run_for(who.scoped, request, who.runtime.procedure_deps()))


TOOLS = (
    ToolSpec(
        "save_procedure",
        save_procedure_tool,
        "Store how a recurring task is done, step by step (agent, action, parameters), so "
        "find_procedures finds it next time. Saving the same trigger_pattern, source and "
        "user again makes the next version (the old one stays in the history). Needs a "
        "client-wide key: procedures serve the whole client.",
        read_only=False,
    ),
    ToolSpec(
        "record_procedure_run",
        record_procedure_run_tool,
        "After following a procedure, record whether it worked: its usage count, last use "
        "and success rate change, and learned procedures that work rank higher.",
        read_only=False,
    ),
)

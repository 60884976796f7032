"""A ``procedures`` row and the domain's ``Procedure``: the columns read, and both ways of the
``steps`` JSON."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from kenning.domain.memory.procedure_model import Procedure, ProcedureSource, ProcedureStep

COLUMNS: Final = (
    "id, client_id, trigger_pattern, description, steps, source, usage_count, success_count, "
    "last_used, created_by, created_at, updated_at, user_key, agent_id, version"
)


def steps(raw: str) -> tuple[ProcedureStep, ...]:
    """The steps of a ``steps`` column's JSON text."""
    return tuple(
        ProcedureStep(agent=s["agent"], action=s["action"], parameters=s["parameters"])
        for s in json.loads(raw)
    )


def steps_json(found: Sequence[ProcedureStep]) -> str:
    """The ``steps`` column's JSON: ``[{"agent", "action", "parameters"}, ...]``."""
    return json.dumps(
        [{"agent": s.agent, "action": s.action, "parameters": dict(s.parameters)} for s in found]
    )


def procedure(row: Any) -> Procedure:
    """A ``Procedure`` from a row holding ``COLUMNS``."""
    return Procedure(
        id=row["id"],
        client_id=row["client_id"],
        trigger_pattern=row["trigger_pattern"],
        description=row["description"],
        steps=steps(row["steps"]),
        source=ProcedureSource(row["source"]),
        usage_count=row["usage_count"],
        success_count=row["success_count"],
        last_used=row["last_used"],
        created_by=row["created_by"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        user_key=row["user_key"] or None,
        agent_id=row["agent_id"],
        version=row["version"],
    )

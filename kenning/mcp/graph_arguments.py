"""Arguments of the graph tools (``graph_tools.py``, ``find_path`` in ``read_tools.py``),
with their descriptions."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from kenning.domain.graph.model import Direction

AsOf = Annotated[
    str | None,
    Field(
        description="Answer as the graph was then (ISO 8601 with a time zone): only edges "
        "valid at that time. Omit for now; a time to come answers as now."
    ),
]
History = Annotated[
    bool,
    Field(
        description="Also list ended edges, each with validFrom/validTo and why it ended "
        "(never as current)."
    ),
]
PropertiesToSet = Annotated[
    dict[str, Any] | None,
    Field(
        description="Properties to set: names to strings, numbers, booleans or lists of "
        "them, e.g. {'owner': 'team:payments', 'tier': 1}."
    ),
]
PropertiesToUnset = Annotated[
    list[str] | None, Field(description="Properties to remove (their values stay in history).")
]
ObservedSince = Annotated[
    str | None,
    Field(description="Since when the new values hold (ISO 8601 with a time zone)."),
]
PathStart = Annotated[str, Field(description="Where the path starts, e.g. 'task:T-1'.")]
PathEnd = Annotated[str, Field(description="Where it ends, e.g. 'user:alice'.")]
PathDepth = Annotated[int, Field(description="Edges at most, 1..6.")]
PathEdgeTypes = Annotated[
    list[str] | None, Field(description="Only edges of these types (omit: any).")
]
PathDirection = Annotated[Direction, Field(description="BOTH (default), OUT (along edges) or IN.")]
PathAsOf = Annotated[
    str | None,
    Field(description="As the graph was then (ISO 8601 with a time zone); omit: now."),
]

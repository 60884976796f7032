"""Which recorded edges a passage contradicts, as one model call reads it: the prompt that
lists the edges with short ids, the flat answer (``{"contradicts": ["E1"]}``) and the
reading of that answer, where only a listed id counts.

Example::

    listed = listing([CurrentEdge("service:billing", "uses_db", "db:mysql")])
    listing_text(listed)            # 'E1: service:billing -uses_db-> db:mysql'
    chosen(ContradictionAnswer(contradicts=["E1", "E7"]), listed)
    # ([CurrentEdge("service:billing", "uses_db", "db:mysql")], ["E7"])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Final

from pydantic import BaseModel, ConfigDict, Field

from kenning.domain.extraction.ports import CurrentEdge
from kenning.domain.models.ports import ModelPriority
from kenning.domain.models.structured import StructuredPrompt

# Bump when the prompt or the answer changes: cached answers of another version are never
# reused (the cache key holds it).
CONTRADICT_PROMPT_VERSION: Final = "contradict-v1"

# At most this many edges are listed to the model per chunk, the newest first: a hub node
# may have thousands, and the prompt must stay a small, fixed cost.
MAX_LISTED: Final = 50

CONTRADICT_SYSTEM: Final = """\
You compare one passage of text with facts already recorded about the things it names.
Each fact is one line: an id, then "source -relation-> target".
List the ids of the facts the passage contradicts: it says the fact no longer holds or
never held, or it states something that cannot be true at the same time (another target
where only one can hold, such as a service that moved to another database).
A fact the passage does not mention, restates, or merely adds to is not contradicted.
Use only ids from the list. Answer with JSON only.

Example facts:
E1: service:billing -uses_db-> db:mysql
E2: person:ada -owns-> service:billing
Example passage: "Billing moved from MySQL to Postgres last month."
Example answer: {"contradicts": ["E1"]}"""


class ContradictionAnswer(BaseModel):
    """The ids of the listed facts the passage contradicts (empty: none)."""

    model_config = ConfigDict(extra="ignore")

    contradicts: Annotated[
        list[Annotated[str, Field(max_length=20)]], Field(max_length=2 * MAX_LISTED)
    ] = []


def listing(edges: Sequence[CurrentEdge]) -> dict[str, CurrentEdge]:
    """The edges by the ids the prompt shows them with (``E1``, ``E2``, ... in order)."""
    return {f"E{number}": edge for number, edge in enumerate(edges, start=1)}


def listing_text(listed: dict[str, CurrentEdge]) -> str:
    """One line per listed edge: ``E1: service:billing -uses_db-> db:mysql``."""
    return "\n".join(
        f"{edge_id}: {e.from_key} -{e.edge_type}-> {e.to_key}" for edge_id, e in listed.items()
    )


def contradict_prompt(
    model: str,
    text: str,
    listed: dict[str, CurrentEdge],
    *,
    priority: ModelPriority,
    max_retries: int,
) -> StructuredPrompt[ContradictionAnswer]:
    """The structured request for one chunk against its listed edges."""
    return StructuredPrompt(
        model=model,
        system=CONTRADICT_SYSTEM,
        prompt=f"Recorded facts:\n{listing_text(listed)}\n\nPassage:\n{text}",
        output=ContradictionAnswer,
        priority=priority,
        max_retries=max_retries,
    )


def chosen(
    answer: ContradictionAnswer, listed: dict[str, CurrentEdge]
) -> tuple[list[CurrentEdge], list[str]]:
    """The listed edges the answer names, and the ids it named that were never listed
    (invented, or meant for an edge the writer cannot end): those end nothing."""
    edges: list[CurrentEdge] = []
    unknown: list[str] = []
    for raw in answer.contradicts:
        edge_id = raw.strip().upper()
        edge = listed.get(edge_id)
        if edge is None:
            unknown.append(raw)
        elif edge not in edges:
            edges.append(edge)
    return edges, unknown

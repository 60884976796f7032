"""The arguments of ``ingest_document`` (``knowledge_tools.py``), as GraphQL's ``IngestInput``
names them (snake_case), each with the description an agent reads."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from kenning.domain.extraction.mode import ExtractionMode

SourceUrn = Annotated[
    str, Field(description="Where it comes from, e.g. 'doc:runbook-42'; re-ingesting replaces.")
]
Kind = Annotated[str, Field(description="What it is, e.g. 'note', 'runbook', 'ticket'.")]
Content = Annotated[str, Field(description="The text (Markdown), relationships inline.")]
MainNodeKey = Annotated[
    str | None, Field(description="The entity it describes, e.g. 'service:billing'.")
]
InfoType = Annotated[
    str | None, Field(description="Routes it in get_context: instructions, skills, ...")
]
Tags = Annotated[list[str] | None, Field(description="Labels to filter searches by.")]
Metadata = Annotated[dict[str, Any] | None, Field(description="A JSON object.")]
Relationships = Annotated[list[str] | None, Field(description="Edges as 'from|relation|to'.")]
Extraction = Annotated[
    ExtractionMode | None,
    Field(
        description="LLM: the extraction model also reads the chunks for entities and "
        "relations in the background (the answer's extractionJobId); default: the "
        "server's setting for the kind, else NONE."
    ),
]
ObservedAt = Annotated[
    str | None,
    Field(
        description="When the source says this was true (ISO 8601 with a time zone); "
        "default: now. Of two assertions of a relation declared ONE, the later wins."
    ),
]
Supersedes = Annotated[
    list[str] | None,
    Field(
        description="Source URNs this document replaces (e.g. the previous version of "
        "a policy): their relationships it does not restate end."
    ),
]

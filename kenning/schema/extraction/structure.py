"""Types of the `structureKnowledge` mutation."""

from __future__ import annotations

from typing import Annotated

import strawberry
from strawberry.scalars import JSON

from kenning.schema.access.scope import ScopeInput
from kenning.schema.errors import (
    ErasedSubject,
    ScopeError,
    SensitiveContentError,
    ValidationError,
)
from kenning.schema.extraction.check_ins import CheckIn
from kenning.schema.extraction.errors import ModelOutputInvalid, ModelUnavailable
from kenning.schema.ingestion.ingest_graph import IngestGraphSuccess


@strawberry.input(description="Free text for the model to structure into knowledge.")
class StructureKnowledgeInput:
    text: str = strawberry.field(description="The expert's text (checked for credentials).")
    hints: str | None = strawberry.field(
        default=None,
        description="Guidance for the model, e.g. the entity types or the team it is about.",
    )
    dry_run: bool = strawberry.field(
        default=False, description="Structure only: load nothing, record the check-in."
    )
    source_urn: str | None = strawberry.field(
        default=None,
        description="What the knowledge is loaded as (loading it again replaces it); by "
        "default structured:<sha256 of the text, first 16 hex digits>.",
    )
    scope: ScopeInput | None = strawberry.field(
        default=None, description="Defaults to the key's scope; may only narrow it."
    )


@strawberry.type(description="What the model made of the text and what was loaded.")
class StructureKnowledgeSuccess:
    check_in: CheckIn = strawberry.field(
        description="The audit record of the call: model, prompt version, attempts, duration."
    )
    source_urn: str = strawberry.field(description="The source it was (or would be) loaded as.")
    knowledge: JSON = strawberry.field(
        description="The knowledge file the model gave: metadata, pieces and graph, as "
        "loadKnowledge reads it."
    )
    loaded: IngestGraphSuccess | None = strawberry.field(
        description="What the load stored and rejected, as loadKnowledge answers; null on a "
        "dry run."
    )


StructureKnowledgeResult = Annotated[
    StructureKnowledgeSuccess
    | ValidationError
    | SensitiveContentError
    | ErasedSubject
    | ScopeError
    | ModelOutputInvalid
    | ModelUnavailable,
    strawberry.union("StructureKnowledgeResult"),
]

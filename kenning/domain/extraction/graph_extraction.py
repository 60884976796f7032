"""Entities and relations a model reads from one chunk: the prompt, the validated output and
the call (P3, the background lane). ``graph_merge.py`` turns answers into nodes and edges.

Example::

    found = await extract_graph(client, chunk_text, model="qwen2.5:7b",
                                priority=ModelPriority.BACKGROUND, max_retries=3)
    found.value.entities  # [Entity(type="service", name="billing", ...), ...]
"""

from __future__ import annotations

import re
from typing import Annotated, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from kenning.domain.errors import ValidationError
from kenning.domain.ingestion.node_keys import MAX_NAMESPACE_LENGTH, normalize_edge_type
from kenning.domain.ingestion.secrets.scan import SecretPolicy, apply_policy, scan
from kenning.domain.models.ports import ModelClient, ModelPriority
from kenning.domain.models.structured import Structured, StructuredPrompt, structured_call

# Bump when the prompt or the output model changes: cached answers of another version are
# never reused (the cache key holds it).
EXTRACT_PROMPT_VERSION: Final = "extract-v1"

_TYPE = re.compile(rf"[A-Za-z][A-Za-z0-9_-]{{0,{MAX_NAMESPACE_LENGTH - 1}}}")

EXTRACT_SYSTEM: Final = """\
You extract a knowledge graph from one passage of text.
List the entities the passage names (people, organisations, services, components, files,
tickets, products, places, concepts) and the relations the passage states between them.
Rules:
- entity "type": one lower-case identifier word such as person, service, team, file.
- entity "name": the name exactly as the passage writes it; "description": one short
  sentence from the passage about the entity ("" when it says nothing).
- relation "source" and "target": names of entities in your list; "type": a verb phrase in
  snake_case such as depends_on, owns, works_at; "confidence": 0..1, how clearly the
  passage states the relation.
- Only what the passage says; no outside knowledge; no relation of an entity with itself.
Answer with JSON only.

Example passage: "The billing service depends on Postgres. Ada Lovelace owns billing."
Example answer: {"entities": [
  {"type": "service", "name": "billing", "description": "The billing service."},
  {"type": "database", "name": "Postgres", "description": "Billing depends on it."},
  {"type": "person", "name": "Ada Lovelace", "description": "Owner of billing."}],
 "relations": [
  {"source": "billing", "type": "depends_on", "target": "Postgres", "confidence": 0.95},
  {"source": "Ada Lovelace", "type": "owns", "target": "billing", "confidence": 0.9}]}"""


def name_key(name: str) -> str:
    """How a relation's end is matched to an entity's name: case and spacing ignored."""
    return " ".join(name.split()).casefold()


class Entity(BaseModel):
    """One entity the passage names."""

    model_config = ConfigDict(extra="ignore")

    type: Annotated[str, Field(min_length=1, max_length=MAX_NAMESPACE_LENGTH)]
    name: Annotated[str, Field(min_length=1, max_length=300)]
    description: Annotated[str, Field(max_length=2000)] = ""

    @field_validator("type")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not _TYPE.fullmatch(value.strip()):
            raise ValueError("type must be an identifier: letters, digits, '_' or '-'")
        return value.strip().lower()

    @field_validator("name")
    @classmethod
    def _named(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("name must not be blank")
        return value.strip()


class Relation(BaseModel):
    """One relation the passage states, between two listed entities."""

    model_config = ConfigDict(extra="ignore")

    source: Annotated[str, Field(min_length=1, max_length=300)]
    type: Annotated[str, Field(min_length=1, max_length=100)]
    target: Annotated[str, Field(min_length=1, max_length=300)]
    confidence: Annotated[float, Field(ge=0.0, le=1.0)]

    @field_validator("type")
    @classmethod
    def _edge_type(cls, value: str) -> str:
        try:
            return normalize_edge_type(value)
        except ValidationError as error:
            raise ValueError(error.message) from None


class ChunkExtraction(BaseModel):
    """What one chunk says: entities and the relations between them."""

    model_config = ConfigDict(extra="ignore")

    entities: Annotated[list[Entity], Field(max_length=200)] = []
    relations: Annotated[list[Relation], Field(max_length=400)] = []

    @model_validator(mode="after")
    def _ends_are_entities(self) -> ChunkExtraction:
        names = {name_key(e.name) for e in self.entities}
        for index, relation in enumerate(self.relations):
            for end in ("source", "target"):
                if name_key(getattr(relation, end)) not in names:
                    raise ValueError(
                        f"relations[{index}].{end} {getattr(relation, end)!r} is not the name "
                        "of a listed entity"
                    )
        return self

    @model_validator(mode="after")
    def _no_credentials(self) -> ChunkExtraction:
        # The chunk was secret-checked, but a model may still emit a credential; names
        # become node keys (refused, as identifiers are), descriptions are stored (redacted).
        # One scan of everything first: answers almost never hold one.
        names = "\n".join(e.name.replace("\n", " ") for e in self.entities)
        texts = "\n".join(e.description.replace("\r", " ") for e in self.entities)
        if not scan(names, identifier=True) and not scan(texts):
            return self
        for index, entity in enumerate(self.entities):
            if scan(entity.name.replace("\n", " "), identifier=True):
                raise ValueError(f"entities[{index}].name holds a credential: leave it out")
            entity.description = apply_policy(entity.description, SecretPolicy.REDACT)
        return self


def extract_prompt(
    model: str, text: str, *, priority: ModelPriority, max_retries: int
) -> StructuredPrompt[ChunkExtraction]:
    """The structured request for one chunk (temperature 0: the port's default options)."""
    return StructuredPrompt(
        model=model,
        system=EXTRACT_SYSTEM,
        prompt=f"Passage:\n{text}",
        output=ChunkExtraction,
        priority=priority,
        max_retries=max_retries,
    )


async def extract_graph(
    client: ModelClient,
    text: str,
    *,
    model: str,
    priority: ModelPriority = ModelPriority.BACKGROUND,
    max_retries: int = 3,
) -> Structured[ChunkExtraction]:
    """Ask ``model`` for the entities and relations of ``text`` (already secret-checked).

    Raises ``ModelCallError`` (backend trouble) or ``ModelOutputError`` (no valid answer)."""
    prompt = extract_prompt(model, text, priority=priority, max_retries=max_retries)
    return await structured_call(client, prompt)

"""``structure_knowledge``: an expert's free text turned by a model into a knowledge file
(pieces, graph, metadata) and, unless it is a dry run, loaded as ``loadKnowledge`` loads one.

Order, and why:
1. The request is checked, then the text and hints pass the server's secret policy: a
   credential refuses the request (``SensitiveContentError``) before any model call; under
   the redact policy the redacted text is what the model and the check-in see.
2. One ``structured_call`` at INTERACTIVE priority (an agent waits) validates the answer as
   ``StructuredKnowledge``, retrying with the validation errors fed back.
3. The answer is loaded through ``load_knowledge`` (the same reading, checks and
   evidence-bearing edges as a knowledge file), then the check-in is stored.

The check-in keeps the model's answer with every credential in it redacted, whatever the
policy: a model may emit one the input never held (a dry run is never load-checked, a load
the reject policy refuses is refused for it), and no credential may be stored.

A model that stays invalid leaves an INVALID check-in and raises ``StructureOutputInvalid``
with its id; an unavailable model (``ModelCallError``) raises as it is and leaves nothing,
since no answer came back. A load the knowledge checks refuse stores nothing of the load and
an INVALID check-in, and the load's error is raised.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from kenning.domain.access.caller import CallerScope
from kenning.domain.access.scope import Scope
from kenning.domain.errors import KenningError, TooLargeError, ValidationError
from kenning.domain.extraction.check_ins import (
    CheckIn,
    CheckInInput,
    CheckInStatus,
    CheckInStore,
    NewCheckIn,
    check_in,
    text_hash,
)
from kenning.domain.extraction.structure_output import StructuredKnowledge
from kenning.domain.extraction.structure_prompt import (
    STRUCTURE_PROMPT_VERSION,
    SYSTEM,
    structure_prompt,
)
from kenning.domain.ingestion.ingest import IngestDeps
from kenning.domain.ingestion.ingest_graph import GraphOutcome
from kenning.domain.ingestion.knowledge_file import load_knowledge
from kenning.domain.ingestion.rules import check_identifiers, clean_content
from kenning.domain.ingestion.secrets.scan import SecretPolicy, apply_policy
from kenning.domain.models.ports import ModelClient, ModelOutputError, ModelPriority
from kenning.domain.models.structured import Structured, StructuredPrompt, structured_call

MAX_TEXT: Final = 100_000
MAX_HINTS: Final = 4_000
URN_PREFIX: Final = "structured:"
_URN = re.compile(r"^[^\x00-\x1f]{1,2048}$")


class StructureOutputInvalid(ModelOutputError):
    """The model's answer stayed invalid; ``check_in_id`` names the INVALID check-in."""

    def __init__(self, error: ModelOutputError, check_in_id: str) -> None:
        message = f"{error.message} (check-in {check_in_id})"
        super().__init__(message, attempts=error.attempts, model=error.model)
        self.check_in_id = check_in_id


@dataclass(frozen=True, slots=True)
class StructureRequest:
    """Free text to structure at ``scope`` for ``caller`` (a key id).

    ``source_urn`` is what the knowledge is loaded as (loading it again replaces it);
    by default ``structured:`` and the start of the text's SHA-256.
    """

    text: str
    scope: Scope
    caller: str
    hints: str | None = None
    dry_run: bool = False
    source_urn: str | None = None


@dataclass(frozen=True, slots=True)
class StructurePorts:
    """What a structuring call runs with: the model, where check-ins go, the load's ports,
    and the settings that shape the call."""

    models: ModelClient
    check_ins: CheckInStore
    ingest: IngestDeps
    model: str
    max_retries: int = 3
    keep_text: bool = True


@dataclass(frozen=True, slots=True)
class StructureOutcome:
    """The check-in, the knowledge file the model gave, and what was loaded (None on a
    dry run)."""

    check_in: CheckIn
    knowledge: Mapping[str, Any]
    source_urn: str
    loaded: GraphOutcome | None


def _checked(request: StructureRequest, ports: StructurePorts) -> tuple[str, str | None, str]:
    """The text and hints after the secret policy, and the source URN; raises on bad input."""
    if not request.text.strip():
        raise ValidationError("text is empty", field="text")
    if len(request.text) > MAX_TEXT:
        raise TooLargeError(f"text exceeds {MAX_TEXT} characters", field="text")
    if request.hints is not None and len(request.hints) > MAX_HINTS:
        raise TooLargeError(f"hints exceed {MAX_HINTS} characters", field="hints")
    urn = request.source_urn
    if urn is not None and (not _URN.match(urn) or not urn.strip()):
        raise ValidationError("sourceUrn must be 1..2048 printable characters", field="sourceUrn")
    if urn is not None:
        check_identifiers([("sourceUrn", urn)])
    policy = ports.ingest.secret_policy
    text = clean_content(request.text, policy, "text")
    hints = clean_content(request.hints, policy, "hints") if request.hints else request.hints
    return text, hints, urn or f"{URN_PREFIX}{text_hash(text)[:16]}"


async def _ask(
    ports: StructurePorts, given: CheckInInput, started: float
) -> Structured[StructuredKnowledge]:
    prompt = StructuredPrompt(
        model=ports.model,
        system=SYSTEM,
        prompt=structure_prompt(given.text, given.hints),
        output=StructuredKnowledge,
        priority=ModelPriority.INTERACTIVE,
        max_retries=ports.max_retries,
    )
    try:
        return await structured_call(ports.models, prompt)
    except ModelOutputError as error:
        record = check_in(
            given,
            CheckInStatus.INVALID,
            model=error.model,
            prompt_version=STRUCTURE_PROMPT_VERSION,
            attempts=error.attempts,
            duration_ms=_since(started),
        )
        stored = await ports.check_ins.add(record)
        raise StructureOutputInvalid(error, stored.id) from None


async def structure_knowledge(request: StructureRequest, ports: StructurePorts) -> StructureOutcome:
    """Structure ``request.text`` with the model and load it unless it is a dry run."""
    text, hints, urn = _checked(request, ports)
    given = CheckInInput(text, hints, request.scope, request.caller, ports.keep_text)
    started = time.perf_counter()
    answer = await _ask(ports, given, started)
    knowledge = answer.value.to_file()
    output = redacted(knowledge)

    def record(status: CheckInStatus, source_urn: str | None) -> NewCheckIn:
        return check_in(
            given,
            status,
            model=answer.model,
            prompt_version=STRUCTURE_PROMPT_VERSION,
            attempts=answer.attempts,
            duration_ms=_since(started),
            output=output,
            source_urn=source_urn,
        )

    if request.dry_run:
        stored = await ports.check_ins.add(record(CheckInStatus.DRY_RUN, None))
        return StructureOutcome(stored, knowledge, urn, None)
    try:
        loaded = await load_knowledge(
            knowledge, urn, request.scope, ports.ingest, int(ModelPriority.INTERACTIVE)
        )
    except KenningError:
        await ports.check_ins.add(record(CheckInStatus.INVALID, None))
        raise
    stored = await ports.check_ins.add(record(CheckInStatus.LOADED, urn))
    return StructureOutcome(stored, knowledge, urn, loaded)


@dataclass(frozen=True, slots=True)
class StructureAsk:
    """A ``structureKnowledge`` as a caller asks for it, at ``scope`` (None: the key's own)."""

    text: str
    hints: str | None = None
    dry_run: bool = False
    source_urn: str | None = None
    scope: Scope | None = None


async def structure_asked(
    caller: CallerScope, asked: StructureAsk, ports: StructurePorts
) -> StructureOutcome:
    """``structure_knowledge`` at the caller's write scope, checked in under its key id:
    GraphQL's ``structureKnowledge`` and MCP's ``structure_knowledge`` call it."""
    request = StructureRequest(
        text=asked.text,
        scope=await caller.stored_writing(asked.scope),
        caller=caller.principal.key_id,
        hints=asked.hints,
        dry_run=asked.dry_run,
        source_urn=asked.source_urn,
    )
    return await structure_knowledge(request, ports)


def redacted(value: Any) -> Any:
    """``value`` (the answer's JSON) with every credential in its strings redacted."""
    if isinstance(value, str):
        return apply_policy(value, SecretPolicy.REDACT)
    if isinstance(value, Mapping):
        return {key: redacted(item) for key, item in value.items()}
    if isinstance(value, list):
        return [redacted(item) for item in value]
    return value


def _since(started: float) -> float:
    return (time.perf_counter() - started) * 1000

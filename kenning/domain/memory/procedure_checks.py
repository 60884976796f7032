"""The checks a procedure passes before it is stored: a normalized trigger, named steps with
JSON-object parameters, sizes, and no credential anywhere (refused, never redacted)."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Final

from kenning.domain.errors import TooLargeError, ValidationError
from kenning.domain.ingestion.secrets.scan import SecretPolicy, apply_policy
from kenning.domain.memory.procedure_model import ProcedureDraft, ProcedureSource, ProcedureStep

MAX_TRIGGER: Final = 500
MAX_DESCRIPTION: Final = 4000
MAX_STEPS: Final = 50
MAX_NAME: Final = 200
MAX_PARAMETERS_BYTES: Final = 16_000


def normalize_trigger(text: str) -> str:
    """A trigger as stored and compared: NFC, runs of whitespace as one space, trimmed.

    Example: ``normalize_trigger("  deploy\\n the app ") == "deploy the app"``.
    """
    return " ".join(unicodedata.normalize("NFC", text).split())


def _text(value: str, field: str, limit: int) -> str:
    if not value.strip():
        raise ValidationError(f"{field} is required", field=field)
    if len(value) > limit:
        raise TooLargeError(f"{field} must be at most {limit} characters", field=field)
    return value


def _name(value: str, where: str) -> str:
    if not value.strip() or len(value) > MAX_NAME or any(ord(c) < 32 for c in value):
        raise ValidationError(f"{where} must be 1..{MAX_NAME} printable characters", field=where)
    return value.strip()


def parameters_json(parameters: Mapping[str, object], where: str = "parameters") -> str:
    """A step's parameters as canonical JSON; ``ValidationError`` unless a JSON object."""
    if not isinstance(parameters, Mapping):
        raise ValidationError(f"{where} must be a JSON object", field=where)
    try:
        text = json.dumps(parameters, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValidationError(f"{where} is not plain JSON: {error}", field=where) from None
    if len(text.encode()) > MAX_PARAMETERS_BYTES:
        raise TooLargeError(f"{where} must be at most {MAX_PARAMETERS_BYTES} bytes", field=where)
    return text


def check_steps(steps: Sequence[ProcedureStep]) -> tuple[ProcedureStep, ...]:
    """The steps, names trimmed; ``ValidationError`` (field ``steps``) naming the bad one."""
    if not steps:
        raise ValidationError("a procedure needs at least one step", field="steps")
    if len(steps) > MAX_STEPS:
        raise TooLargeError(f"a procedure has at most {MAX_STEPS} steps", field="steps")
    checked: list[ProcedureStep] = []
    for index, step in enumerate(steps):
        where = f"steps[{index}]"
        parameters_json(step.parameters, f"{where}.parameters")
        checked.append(
            ProcedureStep(
                agent=_name(step.agent, f"{where}.agent"),
                action=_name(step.action, f"{where}.action"),
                parameters=dict(step.parameters),
            )
        )
    return tuple(checked)


def check_draft(draft: ProcedureDraft) -> ProcedureDraft:
    """The draft as stored: trigger normalized, steps checked, no credential anywhere.

    Raises ``ValidationError`` naming the field, or ``SensitiveContentError``: a stored
    procedure is handed to agents, so a secret in it is refused, never redacted (a redacted
    parameter would make the step fail).
    """
    trigger = normalize_trigger(_text(draft.trigger_pattern, "triggerPattern", MAX_TRIGGER))
    description = _text(draft.description, "description", MAX_DESCRIPTION).strip()
    steps = check_steps(draft.steps)
    apply_policy(trigger, SecretPolicy.REJECT)
    apply_policy(description, SecretPolicy.REJECT)
    for step in steps:
        apply_policy(f"{step.agent}\n{step.action}", SecretPolicy.REJECT)
        apply_policy(parameters_json(step.parameters), SecretPolicy.REJECT)
    return ProcedureDraft(trigger, description, steps, ProcedureSource(draft.source), draft.owner)


def embedding_text(draft: ProcedureDraft) -> str:
    """What a procedure's embedding is computed from: its trigger and description."""
    return f"{draft.trigger_pattern}\n\n{draft.description}"

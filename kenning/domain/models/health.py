"""Whether each model Kenning is set to use can answer: ``health``, ``/readyz`` and the
console say so before a request finds out.

A role (structure, extract, vision) is ``NOT_CONFIGURED`` when no model is named for it,
``UNREACHABLE`` when the backend cannot be asked (the backend's error is the detail),
``NOT_INSTALLED`` when the backend answers but does not hold the model, else ``OK``. Asking
costs one ``/api/tags`` per backend, so answers are kept ``ModelWatch.ttl`` seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from kenning.domain.models.ports import ModelCallError, ModelClient


class ModelState(Enum):
    OK = "ok"
    UNREACHABLE = "unreachable"
    NOT_INSTALLED = "not installed"
    NOT_CONFIGURED = "not configured"


@dataclass(frozen=True, slots=True)
class ModelHealth:
    """One role's model and whether it can answer; ``detail`` says what to do when not."""

    role: str
    model: str | None
    state: ModelState
    detail: str


@dataclass(frozen=True, slots=True)
class ModelRole:
    """A purpose Kenning calls a model for, the model set for it, and the setting naming it."""

    role: str
    model: str | None
    setting: str


def holds(installed: frozenset[str], model: str) -> bool:
    """Whether ``model`` is among ``installed``, an untagged name meaning ``:latest``.

    Example: ``holds(frozenset({"llava:latest"}), "llava")`` is true.
    """
    tagged = model if ":" in model else f"{model}:latest"
    return model in installed or tagged in installed


def judged(roles: tuple[ModelRole, ...], installed: frozenset[str] | str) -> list[ModelHealth]:
    """Each role's health, given the backend's models or the error asking for them."""
    answers = []
    for role in roles:
        if role.model is None:
            state, detail = ModelState.NOT_CONFIGURED, f"no model is set: set {role.setting}"
        elif isinstance(installed, str):
            state, detail = ModelState.UNREACHABLE, installed
        elif not holds(installed, role.model):
            state = ModelState.NOT_INSTALLED
            detail = f"the backend does not hold {role.model}: `ollama pull {role.model}` there"
        else:
            state, detail = ModelState.OK, "ok"
        answers.append(ModelHealth(role.role, role.model, state, detail))
    return answers


class ModelReadiness(Protocol):
    """Whether work for a role may be accepted: a model is named for it and the backend holds
    it (an unreachable backend is no reason to refuse: queued work waits for it)."""

    async def refusal(self, role: str) -> ModelCallError | None:
        """The error to refuse work for ``role`` with at once, or ``None`` to accept it."""
        ...


_REFUSED = (ModelState.NOT_CONFIGURED, ModelState.NOT_INSTALLED)


class ModelWatch:
    """The health of ``roles``' models, asked of ``client`` at most once per ``ttl`` s."""

    def __init__(
        self,
        client: ModelClient,
        roles: tuple[ModelRole, ...],
        *,
        ttl: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._roles = roles
        self._ttl = ttl
        self._clock = clock
        self._known: tuple[float, list[ModelHealth]] | None = None

    @property
    def roles(self) -> Mapping[str, ModelRole]:
        return {role.role: role for role in self._roles}

    async def health(self) -> list[ModelHealth]:
        """Every role's health, as of at most ``ttl`` seconds ago."""
        now = self._clock()
        if self._known is not None and now - self._known[0] < self._ttl:
            return self._known[1]
        if all(role.model is None for role in self._roles):
            found: frozenset[str] | str = frozenset()
        else:
            try:
                found = await self._client.installed()
            except ModelCallError as error:
                found = error.message
        answers = judged(self._roles, found)
        self._known = (now, answers)
        return answers

    async def refusal(self, role: str) -> ModelCallError | None:
        """``ModelReadiness.refusal``: refused while the role has no model, or the backend
        answers without it (the detail says which setting to set or what to pull)."""
        for found in await self.health():
            if found.role == role and found.state in _REFUSED:
                return ModelCallError(
                    f"the {role} model cannot answer: {found.detail}", transient=False
                )
        return None


async def accepted_by(models: ModelReadiness, role: str) -> None:
    """Raise the refusal of work for ``role`` before anything is stored, if there is one."""
    refused = await models.refusal(role)
    if refused is not None:
        raise refused

"""Pure routing policy: priorities, where a request may run, what gets preempted, queue order.

No I/O here: every function takes plain values (`BackendView` snapshots) and returns a
decision, so the rules are tested without a network.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum, StrEnum

from kenning.router.errors import InvalidPriority


class Priority(IntEnum):
    """Lower runs first. 0 orchestrator and user chat, 3 ingestion and embeddings."""

    CRITICAL = 0
    CODING = 1
    VISION = 2
    BACKGROUND = 3


class PrioritySource(StrEnum):
    HEADER = "header"
    RULE = "rule"
    AUTO = "auto"


class ModelSet(StrEnum):
    """The two sets a GPU alternates between."""

    ORCHESTRATOR = "orchestrator"
    BACKGROUND = "background"


class Mode(StrEnum):
    CPU_ONLY = "cpu-only"
    SINGLE_GPU = "single-gpu"
    MULTI_GPU = "multi-gpu"


@dataclass(frozen=True)
class PriorityRule:
    """A model-name glob (``fnmatch``, case-sensitive) and the priority it implies."""

    pattern: str
    priority: Priority

    def matches(self, model: str) -> bool:
        return fnmatch.fnmatchcase(model, self.pattern)


@dataclass(frozen=True)
class PriorityDecision:
    priority: Priority
    source: PrioritySource

    @property
    def preemptible(self) -> bool:
        """Background and automatic work may be cancelled and re-run elsewhere."""
        return self.priority is Priority.BACKGROUND

    @property
    def label(self) -> str:
        return "auto" if self.source is PrioritySource.AUTO else str(int(self.priority))


def parse_priority(value: str | None) -> Priority | None:
    """Read ``X-Ollama-Priority``: ``"0"``-``"3"`` or a lane name; None when absent.

    Example: ``parse_priority("critical") is Priority.CRITICAL``.
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit() and int(text) in Priority._value2member_map_:
        return Priority(int(text))
    try:
        return Priority[text.upper()]
    except KeyError:
        raise InvalidPriority(f"X-Ollama-Priority must be 0-3, got {value!r}") from None


def decide_priority(
    header: str | None, model: str, rules: Sequence[PriorityRule]
) -> PriorityDecision:
    """Header first, then the first matching model rule, else automatic (background-like)."""
    explicit = parse_priority(header)
    if explicit is not None:
        return PriorityDecision(explicit, PrioritySource.HEADER)
    for rule in rules:
        if rule.matches(model):
            return PriorityDecision(rule.priority, PrioritySource.RULE)
    return PriorityDecision(Priority.BACKGROUND, PrioritySource.AUTO)


def queue_key(priority: Priority, seq: int) -> tuple[int, int]:
    """Waiters are served by priority, then arrival: P0 never waits behind P3."""
    return (int(priority), seq)


@dataclass(frozen=True)
class BackendView:
    """A snapshot of one backend as the policy needs it."""

    name: str
    gpu: bool
    healthy: bool = True
    inflight: int = 0
    waiting: int = 0
    depth: int = 4
    holds: ModelSet | None = None
    swapping: bool = False

    @property
    def load(self) -> int:
        return self.inflight + self.waiting

    @property
    def free(self) -> bool:
        return self.inflight < self.depth and self.waiting == 0


@dataclass(frozen=True)
class Placement:
    """Where to queue a request. ``claim``: preempt background and hold the orchestrator set
    on that GPU first. ``degraded``: the request would have liked a GPU but none is healthy."""

    backend: str
    claim: bool = False
    degraded: bool = False


def healthy_gpus(views: Sequence[BackendView]) -> list[BackendView]:
    return [v for v in views if v.gpu and v.healthy]


def mode_of(views: Sequence[BackendView]) -> Mode:
    count = len(healthy_gpus(views))
    return Mode.CPU_ONLY if count == 0 else Mode.SINGLE_GPU if count == 1 else Mode.MULTI_GPU


def dedicated_gpu(views: Sequence[BackendView]) -> str | None:
    """With two or more healthy GPUs the first (in configured order) is reserved for P0."""
    gpus = healthy_gpus(views)
    return gpus[0].name if len(gpus) >= 2 else None


def desired_sets(views: Sequence[BackendView], critical_active: bool) -> dict[str, ModelSet]:
    """Which set each healthy GPU should hold, given whether P0 work is announced or recent."""
    gpus = healthy_gpus(views)
    if len(gpus) >= 2:
        return {
            g.name: ModelSet.ORCHESTRATOR if i == 0 else ModelSet.BACKGROUND
            for i, g in enumerate(gpus)
        }
    if gpus:
        return {gpus[0].name: ModelSet.ORCHESTRATOR if critical_active else ModelSet.BACKGROUND}
    return {}


def _cpu(views: Sequence[BackendView]) -> BackendView | None:
    return next((v for v in views if not v.gpu and v.healthy), None)


def _background_gpus(views: Sequence[BackendView]) -> list[BackendView]:
    dedicated = dedicated_gpu(views)
    return [
        v
        for v in healthy_gpus(views)
        if v.name != dedicated and not v.swapping and v.holds in (ModelSet.BACKGROUND, None)
    ]


def place(decision: PriorityDecision, views: Sequence[BackendView]) -> Placement | None:
    """Choose the backend a request queues on, or None when nothing may take it."""
    gpus = healthy_gpus(views)
    cpu = _cpu(views)
    if decision.priority is Priority.CRITICAL:
        if gpus:
            return Placement(dedicated_gpu(views) or gpus[0].name, claim=True)
        return Placement(cpu.name, degraded=True) if cpu else None
    if decision.priority in (Priority.CODING, Priority.VISION):
        if gpus:
            return Placement(min(gpus, key=lambda v: v.load).name)
        return Placement(cpu.name, degraded=True) if cpu else None
    candidates = _background_gpus(views)
    free = next((v for v in candidates if v.free), None)
    if free is not None:
        return Placement(free.name)
    if cpu is not None:
        return Placement(cpu.name)
    if candidates:
        return Placement(min(candidates, key=lambda v: v.load).name)
    return None


def preemption_victims(running: Mapping[str, Priority]) -> list[str]:
    """Ids of the requests on a GPU that a P0 arrival cancels: all background ones."""
    return [rid for rid, priority in running.items() if priority is Priority.BACKGROUND]

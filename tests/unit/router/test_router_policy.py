"""Pure routing policy: priorities, placement, preemption victims."""

from __future__ import annotations

import pytest

from kenning.router import InvalidPriority, ModelSet, Priority
from kenning.router.scheduling.policy import (
    BackendView,
    Mode,
    PriorityDecision,
    PriorityRule,
    PrioritySource,
    decide_priority,
    desired_sets,
    mode_of,
    parse_priority,
    place,
    preemption_victims,
)

RULES = [
    PriorityRule("qwen3-coder-tool:30b", Priority.CRITICAL),
    PriorityRule("qwen2.5:*", Priority.BACKGROUND),
    PriorityRule("*embed*", Priority.BACKGROUND),
]
P0 = PriorityDecision(Priority.CRITICAL, PrioritySource.HEADER)
P1 = PriorityDecision(Priority.CODING, PrioritySource.HEADER)
P3 = PriorityDecision(Priority.BACKGROUND, PrioritySource.HEADER)
CPU = BackendView("cpu", gpu=False)


def gpu(name: str = "gpu0", **kw: object) -> BackendView:
    return BackendView(name, gpu=True, holds=ModelSet.BACKGROUND, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("0", Priority.CRITICAL),
        (" 3 ", Priority.BACKGROUND),
        ("vision", Priority.VISION),
        ("CODING", Priority.CODING),
        (None, None),
        ("", None),
    ],
)
def test_parse_priority(header: str | None, expected: Priority | None) -> None:
    assert parse_priority(header) is expected


@pytest.mark.parametrize("header", ["4", "-1", "urgent", "1.0"])
def test_parse_priority_rejects(header: str) -> None:
    with pytest.raises(InvalidPriority):
        parse_priority(header)


def test_header_beats_rules_which_beat_auto() -> None:
    assert decide_priority("1", "qwen2.5:7b", RULES) == PriorityDecision(
        Priority.CODING, PrioritySource.HEADER
    )
    assert decide_priority(None, "qwen3-coder-tool:30b", RULES).priority is Priority.CRITICAL
    assert decide_priority(None, "nomic-embed-text", RULES).source is PrioritySource.RULE
    auto = decide_priority(None, "llama3.2:1b", RULES)
    assert auto.source is PrioritySource.AUTO and auto.preemptible and auto.label == "auto"


def test_p0_claims_the_gpu_even_when_busy_with_background() -> None:
    views = [gpu(inflight=4, depth=4), CPU]
    assert place(P0, views) is not None
    placement = place(P0, views)
    assert placement is not None and placement.backend == "gpu0" and placement.claim


def test_p0_without_gpu_degrades_to_cpu_and_nothing_without_backends() -> None:
    placement = place(P0, [gpu(healthy=False), CPU])
    assert placement is not None and placement.backend == "cpu" and placement.degraded
    assert place(P0, [gpu(healthy=False)]) is None


def test_background_uses_free_gpu_else_cpu() -> None:
    assert getattr(place(P3, [gpu(), CPU]), "backend", None) == "gpu0"
    assert getattr(place(P3, [gpu(inflight=4, depth=4), CPU]), "backend", None) == "cpu"
    assert getattr(place(P3, [gpu(waiting=1), CPU]), "backend", None) == "cpu"


def test_background_stays_off_orchestrator_and_swapping_gpus() -> None:
    held = BackendView("gpu0", gpu=True, holds=ModelSet.ORCHESTRATOR)
    assert getattr(place(P3, [held, CPU]), "backend", None) == "cpu"
    assert getattr(place(P3, [gpu(swapping=True), CPU]), "backend", None) == "cpu"


def test_background_waits_on_a_gpu_when_cpu_is_down() -> None:
    placement = place(P3, [gpu(inflight=4, depth=4), BackendView("cpu", gpu=False, healthy=False)])
    assert placement is not None and placement.backend == "gpu0"


def test_coding_prefers_least_loaded_gpu_and_waits_for_it() -> None:
    views = [gpu("gpu0", inflight=4, depth=4), gpu("gpu1", inflight=1), CPU]
    assert getattr(place(P1, views), "backend", None) == "gpu1"
    assert getattr(place(P1, [gpu(inflight=4, depth=4), CPU]), "backend", None) == "gpu0"


def test_two_gpus_dedicate_the_first_to_p0() -> None:
    views = [gpu("gpu0"), gpu("gpu1"), CPU]
    assert mode_of(views) is Mode.MULTI_GPU
    assert getattr(place(P0, views), "backend", None) == "gpu0"
    assert getattr(place(P3, views), "backend", None) == "gpu1"
    assert desired_sets(views, critical_active=False) == {
        "gpu0": ModelSet.ORCHESTRATOR,
        "gpu1": ModelSet.BACKGROUND,
    }


def test_single_gpu_set_follows_critical_activity() -> None:
    views = [gpu(), CPU]
    assert mode_of(views) is Mode.SINGLE_GPU
    assert desired_sets(views, critical_active=True) == {"gpu0": ModelSet.ORCHESTRATOR}
    assert desired_sets(views, critical_active=False) == {"gpu0": ModelSet.BACKGROUND}
    assert desired_sets([CPU], critical_active=True) == {}


def test_preemption_cancels_background_only() -> None:
    running = {"a": Priority.BACKGROUND, "b": Priority.CODING, "c": Priority.BACKGROUND}
    assert preemption_victims(running) == ["a", "c"]
    assert preemption_victims({"x": Priority.CRITICAL}) == []

"""What one app's subscribers share: ``SubscriptionFanOut``, built once by ``create_app`` and
handed to the view, which puts it in every request's context.

It holds the results of recent events by cohort (``SharedResults``, read by the executor,
``cohorts.py``), the JSON of recent payloads (``EncodedPayloads``, read by the view and the
members of ``fan_out.py``) and how many frames members wrote themselves (``DirectFrames``).
Nothing here is a module global: two apps in one process never share a cache.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Awaitable, Hashable
from dataclasses import dataclass, field

from graphql import ExecutionResult

# Recent events' results; an entry keeps its event alive, so an id cannot be reused while
# it is cached. A change reaches all members within moments, so a few dozen suffice.
SHARED_KEPT = 256
ENCODED_KEPT = 64

SharedResult = ExecutionResult | Awaitable[ExecutionResult]


class SharedResults:
    """The results of recent events by (cohort, event), bounded, oldest dropped first."""

    def __init__(self, kept: int = SHARED_KEPT) -> None:
        self._kept = kept
        self._recent: OrderedDict[tuple[Hashable, int], tuple[object, SharedResult]] = OrderedDict()
        self.executions = 0
        self.shared = 0

    def get(self, cohort: Hashable, event: object) -> SharedResult | None:
        hit = self._recent.get((cohort, id(event)))
        if hit is None or hit[0] is not event:
            return None
        self.shared += 1
        return hit[1]

    def put(self, cohort: Hashable, event: object, result: SharedResult) -> None:
        self.executions += 1
        self._recent[(cohort, id(event))] = (event, result)
        if len(self._recent) > self._kept:
            self._recent.popitem(last=False)

    def forget(self, cohort: Hashable, event: object) -> None:
        hit = self._recent.get((cohort, id(event)))
        if hit is not None and hit[0] is event:
            del self._recent[(cohort, id(event))]


class EncodedPayloads:
    """The JSON of recent ``{"data": ...}`` payloads by their data object, oldest dropped."""

    def __init__(self, kept: int = ENCODED_KEPT) -> None:
        self._kept = kept
        # The data is kept alongside, so its id cannot be reused while cached.
        self._recent: OrderedDict[int, tuple[object, str]] = OrderedDict()
        self.encodings = 0

    def __call__(self, data: object) -> str:
        hit = self._recent.get(id(data))
        if hit is None or hit[0] is not data:
            self.encodings += 1
            hit = (data, json.dumps({"data": data}, separators=(",", ":")))
            self._recent[id(data)] = hit
            if len(self._recent) > self._kept:
                self._recent.popitem(last=False)
        return hit[1]


class DirectFrames:
    """How many ``next`` messages members wrote themselves (tests and profiles read it)."""

    def __init__(self) -> None:
        self.sent = 0


@dataclass(frozen=True, slots=True, eq=False)
class SubscriptionFanOut:
    """The caches and counters of one app's subscriptions."""

    shared_results: SharedResults = field(default_factory=SharedResults)
    encoded_payloads: EncodedPayloads = field(default_factory=EncodedPayloads)
    direct_frames: DirectFrames = field(default_factory=DirectFrames)

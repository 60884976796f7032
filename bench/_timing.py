"""Wall and CPU time of a benchmark phase, split by process (Linux ``/proc``).

On a small machine the client, the server and PostgreSQL share the cores, so a rate alone
does not say where the time went; the CPU seconds of each part do.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far; 0.0 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            # The command name may hold spaces; the fields after its ")" are fixed.
            fields = stat.read().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICKS


def machine_busy() -> float:
    """Non-idle CPU seconds of all cores since boot."""
    with open("/proc/stat", encoding="ascii") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return (sum(values[:8]) - idle) / _TICKS


@dataclass(slots=True)
class Sample:
    """CPU counters at one instant."""

    wall: float
    own: float
    machine: float
    pids: dict[int, float] = field(default_factory=dict)


def sample(pids: Iterable[int] = ()) -> Sample:
    """The counters now, for this process, the machine and ``pids``."""
    return Sample(
        wall=time.perf_counter(),
        own=time.process_time(),
        machine=machine_busy(),
        pids={pid: process_cpu(pid) for pid in pids},
    )


def cpu_between(start: Sample, end: Sample, pids: Iterable[int]) -> float:
    """CPU seconds ``pids`` used between two samples (a pid new at ``end`` started at 0)."""
    return sum(end.pids.get(pid, 0.0) - start.pids.get(pid, 0.0) for pid in set(pids))


@dataclass(frozen=True, slots=True)
class PhaseTime:
    """Where one phase spent its time: wall clock and CPU seconds by part."""

    wall_s: float
    client_cpu_s: float
    server_cpu_s: float
    postgres_cpu_s: float
    machine_cpu_s: float


def phase_time(
    start: Sample, end: Sample, *, server: Sequence[int] = (), postgres: Sequence[int] = ()
) -> PhaseTime:
    """The ``PhaseTime`` between two samples taken with ``server`` and ``postgres`` pids."""
    return PhaseTime(
        wall_s=end.wall - start.wall,
        client_cpu_s=end.own - start.own,
        server_cpu_s=cpu_between(start, end, server),
        postgres_cpu_s=cpu_between(start, end, postgres),
        machine_cpu_s=end.machine - start.machine,
    )


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation; ``nan`` when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)

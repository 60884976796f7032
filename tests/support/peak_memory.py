"""How far a process's peak resident memory (``VmHWM``) rose over a stretch of work.

Linux resets the peak to the current resident size when ``5`` is written to
``/proc/<pid>/clear_refs``, so a test can measure one step of a long-running server.
"""

from __future__ import annotations

import os
from pathlib import Path


def _status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name == field:
            return int(value.split()[0])
    raise LookupError(f"/proc/{pid}/status has no {field}")


class PeakMemory:
    """``reset()`` before the work, ``rise()`` after it: the peak's rise in bytes."""

    def __init__(self, pid: int | None = None) -> None:
        self.pid = pid if pid is not None else os.getpid()
        self._base = 0

    def reset(self) -> None:
        Path(f"/proc/{self.pid}/clear_refs").write_text("5")
        self._base = _status_kib(self.pid, "VmRSS")

    def rise(self) -> int:
        return max(0, _status_kib(self.pid, "VmHWM") - self._base) * 1024

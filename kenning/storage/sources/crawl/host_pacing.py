"""A minimum interval between requests to one host (the per-host rate limit)."""

from __future__ import annotations

import asyncio
import time


class HostPacing:
    """Spaces requests to each host at least ``min_interval`` seconds apart; 0 turns it off."""

    def __init__(self, min_interval: float) -> None:
        self._interval = max(min_interval, 0.0)
        self._last: dict[str, float] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def wait(self, host: str) -> None:
        """Return when a request to ``host`` may start."""
        if self._interval == 0:
            return
        async with self._locks.setdefault(host, asyncio.Lock()):
            last = self._last.get(host)
            if last is not None:
                delay = last + self._interval - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            self._last[host] = time.monotonic()

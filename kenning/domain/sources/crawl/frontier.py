"""The crawl frontier: URLs waiting to be visited, breadth first, each at most once.

URLs are deduplicated by their normalised form (``urls.normalise_url``): a URL seen once,
whether visited, waiting or refused, is never queued again. Depth 0 is the start URL.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Visit:
    """A URL to visit, how many links away from the start it is, and who linked it."""

    url: str
    depth: int
    referrer: str | None = None


class Frontier:
    """Breadth-first queue of normalised URLs with a seen set."""

    def __init__(self, max_depth: int) -> None:
        self._max_depth = max_depth
        self._queue: deque[Visit] = deque()
        self._seen: set[str] = set()

    def __len__(self) -> int:
        return len(self._queue)

    def seen(self, url: str) -> bool:
        """Whether ``url`` was ever offered (queued, visited or refused)."""
        return url in self._seen

    def mark(self, url: str) -> None:
        """Remember ``url`` as seen without queueing it (a redirect's target, a refusal)."""
        self._seen.add(url)

    def add(self, url: str, depth: int, referrer: str | None = None) -> bool:
        """Queue ``url`` unless seen or deeper than the limit; whether it was queued."""
        if url in self._seen or depth > self._max_depth:
            return False
        self._seen.add(url)
        self._queue.append(Visit(url, depth, referrer))
        return True

    def take(self, count: int) -> list[Visit]:
        """Up to ``count`` visits, shallowest first, in the order they were queued."""
        taken: list[Visit] = []
        while self._queue and len(taken) < count:
            taken.append(self._queue.popleft())
        return taken

"""What `FakeOllama` answers to a generation, when a test says: scripted replies, a replier
that answers from the request, and 503 storms.

    fake.script(['{"entities": []}', Reply("not json", delay=2.0)])  # answered in order
    fake.replier = lambda body: '{"echo": %d}' % len(body["messages"])
    fake.busy_for(3)  # the next three model requests answer 503 "server busy"

Scripted replies go first, then the replier; with neither the fake answers with its usual
fake tokens. A reply's content reaches the client in token-sized pieces when the request
streams, whole otherwise, with the usual final object and counts. Tests call these methods
from their own thread while the fake serves in its own: every step is one atomic operation
or holds the lock.
"""

from __future__ import annotations

import re
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Reply:
    """One answer: its text, and how long the model "thinks" before the first piece."""

    content: str
    delay: float = 0.0


Replier = Callable[[dict[str, Any]], "str | Reply"]

_PIECES = re.compile(r"\S+\s*|\s+")


def pieces(content: str) -> list[str]:
    """``content`` cut into token-sized pieces that join back into it exactly."""
    return _PIECES.findall(content)


def as_reply(answer: str | Reply) -> Reply:
    return answer if isinstance(answer, Reply) else Reply(answer)


class ScriptedReplies:
    """The scripting half of `FakeOllama`; its ``__init__`` calls `_reset_replies`."""

    replier: Replier | None
    _scripted: deque[Reply]
    _busy_left: int
    _busy_lock: threading.Lock

    def _reset_replies(self) -> None:
        self.replier = None
        self._scripted = deque()
        self._busy_left = 0
        self._busy_lock = threading.Lock()

    def script(self, replies: Iterable[str | Reply]) -> None:
        """Answer the next generations with these replies, in order (after any still queued)."""
        self._scripted.extend(as_reply(answer) for answer in replies)

    @property
    def scripted_left(self) -> int:
        """Scripted replies not answered yet."""
        return len(self._scripted)

    def busy_for(self, requests: int) -> None:
        """The next ``requests`` model requests answer 503 "server busy", then normal again."""
        if requests < 0:
            raise ValueError("requests must be at least 0")
        with self._busy_lock:
            self._busy_left = requests

    def take_busy(self) -> bool:
        """True (and one fewer left) while a 503 storm lasts."""
        with self._busy_lock:
            if self._busy_left <= 0:
                return False
            self._busy_left -= 1
            return True

    def next_reply(self, body: dict[str, Any]) -> Reply | None:
        """The scripted or replied answer to this request, None to answer as usual."""
        try:
            return self._scripted.popleft()
        except IndexError:
            pass
        replier = self.replier
        return as_reply(replier(body)) if replier is not None else None

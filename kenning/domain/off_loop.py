"""CPU-bound work of the write path, moved off the event loop when its input is large.

Secret scanning, reference extraction, chunking and hashing are pure Python; on a 2 MB
document they take seconds, and on the loop they would stall every request and websocket.
Large inputs run in one shared worker thread: one, so that concurrent large ingests queue
behind each other instead of all contending for the GIL with the loop (which then gets
it back at every switch interval, 5 ms). Small inputs stay on the loop, where a thread hop
would cost more than the work.

Example: ``await off_loop(len(text), lambda: scan(text))``.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

# Below this many characters the work takes well under a millisecond.
OFF_LOOP_CHARS = 32_000

_executor: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def _shared_executor() -> ThreadPoolExecutor:
    global _executor
    with _lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kenning-cpu")
        return _executor


async def off_loop(size: int, work: Callable[[], T]) -> T:
    """``work()``, run in the shared worker thread when ``size`` is large, else inline."""
    if size < OFF_LOOP_CHARS:
        return work()
    loop = asyncio.get_running_loop()
    # The request id and other context variables follow the work into the thread.
    context = contextvars.copy_context()
    return await loop.run_in_executor(_shared_executor(), context.run, work)

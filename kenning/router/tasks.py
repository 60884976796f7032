"""Stopping background tasks for sure."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any


async def cancel_all(tasks: Iterable[asyncio.Task[Any]], *, recheck: float = 1.0) -> None:
    """Cancel ``tasks`` and wait until every one has ended, cancelling again any that is
    still running after ``recheck`` seconds (a cancel can be lost when it races an await
    that completes at the same moment)."""
    pending = {task for task in tasks if not task.done()}
    for task in pending:
        task.cancel()
    while pending:
        _, pending = await asyncio.wait(pending, timeout=recheck)
        for task in pending:
            task.cancel()

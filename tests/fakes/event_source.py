"""The one fake of the queue's ``EventSource`` port: messages a test puts on ``queue``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from kenning.domain.queue.ports import BusMessage


class FakeBus:
    """Ready unless told otherwise; ``queue`` feeds ``messages()``."""

    def __init__(self, *, ready: bool = True) -> None:
        self.queue: asyncio.Queue[BusMessage] = asyncio.Queue()
        self.ready = ready

    async def wait_ready(self, within: float) -> bool:
        return self.ready

    async def messages(self) -> AsyncIterator[BusMessage]:
        while True:
            yield await self.queue.get()

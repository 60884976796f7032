"""What a page asked for over the network, recorded from Playwright's events."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from playwright.async_api import Page, WebSocket


@dataclass
class Traffic:
    """What the page asked for: every HTTP(S) URL, websocket URL and websocket frame."""

    urls: list[str] = field(default_factory=list)
    sent: list[dict[str, object]] = field(default_factory=list)
    received: list[dict[str, object]] = field(default_factory=list)

    def watch(self, page: Page) -> None:
        page.on("request", lambda request: self.urls.append(request.url))
        page.on("websocket", self._on_websocket)

    def _on_websocket(self, socket: WebSocket) -> None:
        self.urls.append(socket.url)
        socket.on("framesent", lambda payload: self.sent.append(_frame(payload)))
        socket.on("framereceived", lambda payload: self.received.append(_frame(payload)))

    async def stream_frames(self, until: str, within: float = 10) -> list[dict[str, object]]:
        """The "next" and "complete" frames received, once one of type ``until`` arrived."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if any(frame["type"] == until for frame in self.received):
                break
            await asyncio.sleep(0.05)
        return [frame for frame in self.received if frame["type"] in {"next", "complete"}]

    def foreign_hosts(self) -> set[str]:
        """Hosts other than the server's own that the page contacted."""
        network = [urlsplit(url) for url in self.urls]
        return {
            part.hostname or part.geturl()
            for part in network
            if part.scheme in {"http", "https", "ws", "wss"} and part.hostname != "127.0.0.1"
        }


def _frame(payload: str | bytes) -> dict[str, object]:
    message = json.loads(payload)
    assert isinstance(message, dict)
    return message

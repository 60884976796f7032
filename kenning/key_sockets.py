"""Open websockets by API key: closed with code 4403 when their key is revoked, anywhere.

A revocation heard over Redis closes the key's sockets at once. While Redis was away,
revocations may have been missed: when it is back, the keys of every open socket are checked
against PostgreSQL, and the revoked ones' sockets are closed too.
"""

from __future__ import annotations

import contextlib
import logging
import weakref

from starlette.websockets import WebSocket

from kenning.storage.access.api_keys import PgApiKeys

logger = logging.getLogger("kenning.auth")
REVOKED_CLOSE_CODE = 4403


class KeySockets:
    """The websockets of each key id this process serves."""

    def __init__(self) -> None:
        self._sockets: dict[str, weakref.WeakSet[WebSocket]] = {}
        self._keys: PgApiKeys | None = None

    def track(self, socket: WebSocket, key_id: str, keys: PgApiKeys) -> None:
        """Remember ``socket`` as authenticated by ``key_id``."""
        if self._keys is not keys:
            keys.on_revoked(self.close)
            keys.on_gap(self.recheck)
            self._keys = keys
        self._sockets.setdefault(key_id, weakref.WeakSet()).add(socket)

    async def close(self, key_id: str) -> None:
        """Close every open socket of ``key_id`` with 4403."""
        for socket in list(self._sockets.pop(key_id, ())):
            # Already closed by the client or the server: nothing to do.
            with contextlib.suppress(RuntimeError, OSError):
                await socket.close(code=REVOKED_CLOSE_CODE, reason="the API key was revoked")

    async def recheck(self) -> None:
        """Close the sockets of keys revoked while revocations could not be heard."""
        open_keys = [key_id for key_id, sockets in self._sockets.items() if sockets]
        if self._keys is None or not open_keys:
            return
        try:
            revoked = await self._keys.revoked_among(open_keys)
        except Exception:  # PostgreSQL away too: the next gap or revocation tries again
            logger.warning("api_keys.sockets.recheck_failed", exc_info=True)
            return
        for key_id in revoked:
            await self.close(key_id)

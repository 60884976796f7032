"""A Redis server of its own for a test that stops and starts it: the stack's redis-server
binary (inside the stack's root) on a free loopback port, so other tests keep theirs."""

from __future__ import annotations

import socket
import subprocess
import time

from kenning.settings import Settings
from tests.support.server_process import free_port


class RedisProcess:
    """``start()`` and ``stop()`` a real Redis on one fixed port, as often as needed."""

    def __init__(self, settings: Settings) -> None:
        self.root = settings.stack_dir / "root"
        self.port = free_port()
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = [
            "chroot", str(self.root), "/usr/bin/redis-server",
            "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--dir", "/tmp",
        ]  # fmt: skip
        self._process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self._answers():
                return
            time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on {self.port}")

    def stop(self) -> None:
        """Kill it (as a crash would) and wait until the port is closed."""
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=10)
            self._process = None

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

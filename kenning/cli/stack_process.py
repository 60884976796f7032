"""Running commands for the local stack: subprocesses, root check, waiting, errors."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable

from kenning.domain.errors import ConfigurationError


class StackError(ConfigurationError):
    """The local stack could not be provisioned, started or stopped."""


def run_command(argv: list[str], *, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C", "HOME": "/root"}
    # Daemons inherit our stdout otherwise and hold a caller's pipe open forever.
    result = subprocess.run(
        argv, capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, check=False
    )
    if check and result.returncode != 0:
        raise StackError(f"`{' '.join(argv[:4])} ...` failed: {output_tail(result)}")
    return result


def output_tail(result: subprocess.CompletedProcess[str]) -> str:
    text = (result.stderr or "") + (result.stdout or "")
    return text.strip()[-800:] or f"exit code {result.returncode}"


def require_root() -> None:
    if os.geteuid() != 0:
        raise StackError(
            "the local stack needs root (debootstrap and chroot); run `sudo kenning stack up`, "
            "or point KENNING_DATABASE_URL and KENNING_REDIS_URL at existing servers"
        )


def wait_until(probe: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if probe():
            return
        time.sleep(0.1)
    raise StackError(f"timed out after {timeout:.0f} s waiting for {what}")

"""The local stack's Debian root: where PostgreSQL and Redis live inside it, and `StackRoot`,
which runs commands there (as root or as a server's user) and asks the servers whether they
answer."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from kenning.cli.stack_config import StackConfig

PG_MAJOR = "17"
PACKAGES = (
    f"postgresql-{PG_MAJOR}",
    f"postgresql-{PG_MAJOR}-age",
    f"postgresql-{PG_MAJOR}-pgvector",
    "redis-server",
)
PG_BIN = f"/usr/lib/postgresql/{PG_MAJOR}/bin"
PG_DATA = "/srv/kenning/pg"
LOG_DIR = "/srv/kenning/log"
REDIS_DIR = "/srv/kenning/redis"
SOCKET_DIR = "/run/postgresql"

Runner = Callable[[list[str], bool], "subprocess.CompletedProcess[str]"]


class StackRoot:
    """Commands inside the stack's root, run through ``runner`` (a fake one in tests)."""

    def __init__(self, config: StackConfig, runner: Runner) -> None:
        self.config = config
        self._runner = runner

    def host(self, path: str) -> Path:
        """Where a path of the root is on the host."""
        return self.config.root / path.lstrip("/")

    def run(self, argv: list[str], *, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` inside the root as root."""
        return self._runner(["chroot", str(self.config.root), *argv], check)

    def run_as(
        self, user: str, argv: list[str], *, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run ``argv`` inside the root as ``user``."""
        return self._runner(
            ["chroot", f"--userspec={user}:{user}", str(self.config.root), *argv], check
        )

    def postgres_running(self) -> bool:
        """Whether PostgreSQL answers on its loopback port."""
        if not (self.config.root / PG_BIN.lstrip("/") / "pg_isready").exists():
            return False
        result = self.run(
            [f"{PG_BIN}/pg_isready", "-q", "-h", "127.0.0.1", "-p", str(self.config.pg_port)],
            check=False,
        )
        return result.returncode == 0

    def redis_running(self) -> bool:
        """Whether Redis answers PING on its loopback port."""
        if not (self.config.root / "usr/bin/redis-cli").exists():
            return False
        result = self.redis_cli("ping", check=False)
        return result.returncode == 0 and result.stdout.strip() == "PONG"

    def psql(self, sql: str) -> str:
        """One statement's output, unaligned, as the postgres superuser."""
        result = self.run(
            [
                f"{PG_BIN}/psql",
                "-h",
                "127.0.0.1",
                "-p",
                str(self.config.pg_port),
                "-U",
                "postgres",
                "-d",
                "postgres",
                "-v",
                "ON_ERROR_STOP=1",
                "-Atc",
                sql,
            ],
        )
        return result.stdout.strip()

    def redis_cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """Run redis-cli against the stack's Redis."""
        return self.run(
            ["/usr/bin/redis-cli", "-h", "127.0.0.1", "-p", str(self.config.redis_port), *args],
            check=check,
        )

"""What the local stack is given (`StackConfig`: its directory, ports, mirror, databases) and
what ``kenning stack status`` reports (`StackStatus`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class StackConfig:
    """Where the stack lives and which loopback ports it serves on."""

    directory: Path
    pg_port: int = 5433
    redis_port: int = 6380
    mirror: str = "http://deb.debian.org/debian"
    suite: str = "trixie"
    databases: Sequence[str] = ("kenning",)

    @property
    def root(self) -> Path:
        return self.directory / "root"

    @property
    def postgres_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.pg_port}/postgres"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"


@dataclass(frozen=True, slots=True)
class StackStatus:
    """What ``status`` reports."""

    provisioned: bool
    postgres_running: bool
    redis_running: bool
    postgres_version: str | None
    age_version: str | None
    pgvector_version: str | None
    redis_version: str | None
    postgres_url: str
    redis_url: str

"""What the local stack is given (`StackConfig`: its directory, ports, mirror, databases) and
what ``kenning stack status`` reports (`StackStatus`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

_MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class StackConfig:
    """Where the stack lives and which loopback ports it serves on."""

    directory: Path
    pg_port: int = 5433
    redis_port: int = 6380
    mirror: str = "http://deb.debian.org/debian"
    suite: str = "trixie"
    databases: Sequence[str] = ("kenning",)
    huge_pages: bool = True  # reserve huge pages for PostgreSQL's shared memory (up/down)

    @property
    def root(self) -> Path:
        return self.directory / "root"

    @property
    def postgres_url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.pg_port}/postgres"

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    @property
    def huge_page_record(self) -> Path:
        """How many huge pages ``up`` added to the kernel's pool (see ``stack_hugepages``)."""
        return self.directory / "hugepages-added"


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
    huge_pages: str | None = None  # PostgreSQL's huge_pages_status: on, off or unknown


def memory_settings(total_bytes: int | None = None) -> dict[str, str]:
    """PostgreSQL's memory settings for a machine of ``total_bytes`` (this one's by default):
    a quarter of it as ``shared_buffers`` (128 MB to 8 GB), so the pages a write touches at a
    million chunks (the partition's HNSW graph, the upper levels of the postings btrees) stay
    in PostgreSQL's own cache instead of being copied in from the OS cache again on many
    inserts, and half of it as ``effective_cache_size``.

    Example: ``memory_settings(24 * 2**30) == {"shared_buffers": "6144MB",
    "effective_cache_size": "12288MB"}``.
    """
    total = total_bytes if total_bytes is not None else machine_memory()
    shared = min(max(total // 4, 128 * _MB), 8192 * _MB)
    return {
        "shared_buffers": f"{shared // _MB}MB",
        "effective_cache_size": f"{max(total // 2, shared) // _MB}MB",
    }


def machine_memory(limit_file: Path = Path("/sys/fs/cgroup/memory.max")) -> int:
    """Physical memory, or the cgroup's limit when this runs under a lower one."""
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        limit = limit_file.read_text().strip()
    except OSError:
        return physical
    return min(physical, int(limit)) if limit.isdigit() else physical  # "max": no limit


def postgres_conf(config: StackConfig, socket_dir: str, memory: dict[str, str]) -> str:
    """The stack's ``postgresql.auto.conf``: loopback only, AGE preloaded, ``memory``'s
    settings, index builds in memory, and huge pages tried unless switched off (the server
    falls back to normal pages when the kernel has none free)."""
    return (
        "# Written by `kenning stack up`; edits are overwritten.\n"
        f"port = {config.pg_port}\n"
        "listen_addresses = '127.0.0.1'\n"
        f"unix_socket_directories = '{socket_dir}'\n"
        "shared_preload_libraries = 'age'\n"
        "max_connections = 200\n"
        f"shared_buffers = '{memory['shared_buffers']}'\n"
        # Index builds: an HNSW graph of one chunks partition (a client's, ~100k
        # chunks at a million) fits in memory, built by the leader and 2 workers.
        "maintenance_work_mem = '1GB'\n"
        "max_parallel_maintenance_workers = 2\n"
        "work_mem = '16MB'\n"
        f"effective_cache_size = '{memory['effective_cache_size']}'\n"
        "max_wal_size = '2GB'\n"
        "wal_compression = 'lz4'\n"
        f"huge_pages = '{'try' if config.huge_pages else 'off'}'\n"
        "fsync = on\n"
    )

"""The one fake of the host `LocalStack` runs commands on: servers and databases in memory."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from kenning.cli.stack_hugepages import HugePagePool
from kenning.cli.stack_process import StackError
from kenning.cli.stack_root import PG_BIN


class FakeHost:
    """Plays the commands `LocalStack` runs, keeping server state in memory."""

    def __init__(
        self,
        root: Path,
        *,
        debootstrap_fails: bool = False,
        refused_starts: int = 0,
        huge_pages_needed: int = -1,
        maps_huge_pages: bool = True,
    ) -> None:
        self.root = root
        self.huge_pages_needed = huge_pages_needed  # postgres -C's answer; -1: unsupported
        self.maps_huge_pages = maps_huge_pages  # what the started server's status says
        self.refused_starts = refused_starts
        self.calls: list[list[str]] = []
        self.pg_up = False
        self.redis_up = False
        self.databases: set[str] = set()
        self.debootstrap_fails = debootstrap_fails

    def __call__(self, argv: list[str], check: bool) -> subprocess.CompletedProcess[str]:
        self.calls.append(argv)
        code, out = self._play(argv)
        if check and code != 0:
            raise StackError(f"{argv[0]} failed")
        return subprocess.CompletedProcess(argv, code, out, "")

    def _play(self, argv: list[str]) -> tuple[int, str]:
        cmd = argv[argv.index(str(self.root)) + 1 :] if str(self.root) in argv else argv
        name = Path(cmd[0]).name
        if argv[0] == "debootstrap":
            if self.debootstrap_fails:
                return 1, "E: Failed getting release file"
            (self.root / "usr/sbin").mkdir(parents=True)
            (self.root / "usr/bin").mkdir(parents=True)
            return 0, ""
        if name == "env" and "install" in cmd:
            pg_bin = self.root / PG_BIN.lstrip("/")
            pg_bin.mkdir(parents=True, exist_ok=True)
            (pg_bin / "pg_isready").touch()
            (self.root / "usr/bin/redis-cli").touch()
        if name == "initdb":
            (self.root / "srv/kenning/pg/PG_VERSION").write_text("17")
        if name == "postgres" and "-C" in cmd:
            return 0, f"{self.huge_pages_needed}\n"
        if name == "pg_isready":
            return (0 if self.pg_up else 2), ""
        if name == "pg_ctl":
            if "start" in cmd and self.refused_starts > 0:
                self.refused_starts -= 1
                return 1, 'FATAL:  lock file "postmaster.pid" already exists'
            self.pg_up = "start" in cmd
        if name == "redis-server":
            self.redis_up = True
        if name == "redis-cli":
            if "ping" in cmd:
                return (0, "PONG") if self.redis_up else (1, "")
            if "shutdown" in cmd:
                self.redis_up = False
            return 0, "redis_version:8.0.2\n"
        if name == "psql":
            return 0, self._psql(cmd[-1])
        return 0, ""

    def _psql(self, sql: str) -> str:
        if sql.startswith("CREATE DATABASE"):
            self.databases.add(sql.split('"')[1])
            return ""
        if "pg_database" in sql:
            name = sql.rsplit("'", 2)[1]
            return "1" if name in self.databases else ""
        if "huge_pages_status" in sql:
            return "on" if self.huge_pages_needed > 0 and self.maps_huge_pages else "off"
        return "17.11" if "server_version" in sql else "1.5.0"

    def ran(self, program: str) -> int:
        return sum(1 for argv in self.calls if any(Path(a).name == program for a in argv[:4]))


@dataclass(frozen=True, slots=True)
class FakeHugePages(HugePagePool):
    """The kernel's huge page pool as files, growing only up to ``limit`` pages."""

    limit: int = 10_000

    @classmethod
    def in_dir(
        cls, directory: Path, *, total: int = 0, limit: int = 10_000, page_kb: int = 2048
    ) -> FakeHugePages:
        pool = cls(
            size_file=directory / "nr_hugepages",
            meminfo=directory / "meminfo",
            boot_id_file=directory / "boot_id",
            lock_file=directory / "hugepages.lock",
            limit=limit,
        )
        pool.boot_id_file.write_text("boot-1\n")
        pool.set(total=total, free=total, reserved=0, page_kb=page_kb)
        return pool

    def set(self, *, total: int, free: int, reserved: int, page_kb: int = 2048) -> None:
        self.size_file.write_text(f"{total}\n")
        self.meminfo.write_text(
            "MemTotal:       24576000 kB\n"
            f"HugePages_Total:   {total}\nHugePages_Free:    {free}\n"
            f"HugePages_Rsvd:    {reserved}\nHugePages_Surp:        0\n"
            f"Hugepagesize:       {page_kb} kB\n"
        )

    def resize(self, pages: int) -> int:
        counts = self.counts()
        total = min(pages, self.limit)
        used = counts["HugePages_Total"] - counts["HugePages_Free"]
        self.set(
            total=total,
            free=total - used,
            reserved=counts["HugePages_Rsvd"],
            page_kb=counts["Hugepagesize"],
        )
        return total

    def reboot(self, pages: int) -> None:
        """A new boot whose pool starts with ``pages`` (an administrator's)."""
        self.boot_id_file.write_text("boot-2\n")
        self.set(total=pages, free=pages, reserved=0)

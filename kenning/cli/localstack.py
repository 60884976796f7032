"""The local stack: PostgreSQL 17 + AGE + pgvector and Redis inside a Debian trixie root.

Bookworm hosts have no AGE or pgvector packages, so ``up`` debootstraps a minimal trixie
root under the stack directory, installs the packages there and runs the servers from it
on loopback ports. Every step leaves a marker only once it finished, so a run killed half
way is repaired by the next ``up``: a step without its marker is undone and redone.
"""

from __future__ import annotations

import hashlib
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from kenning.cli.stack_config import StackConfig, StackStatus, memory_settings, postgres_conf
from kenning.cli.stack_hugepages import HugePagePool, after_start, before_start, pool_lock, release
from kenning.cli.stack_process import (
    StackError,
    output_tail,
    require_root,
    run_command,
    wait_until,
)
from kenning.cli.stack_root import (
    LOG_DIR,
    PACKAGES,
    PG_BIN,
    PG_DATA,
    REDIS_DIR,
    SOCKET_DIR,
    Runner,
    StackRoot,
)

__all__ = ["LocalStack", "StackConfig", "StackStatus"]

_START_ATTEMPTS = 4

Say = Callable[[str], None]


class LocalStack:
    """Provision, start, stop and inspect the local stack."""

    def __init__(
        self,
        config: StackConfig,
        say: Say = print,
        runner: Runner | None = None,
        pool: HugePagePool | None = None,
    ) -> None:
        self.config = config
        self._say = say
        self._runner: Runner = runner or (lambda argv, check: run_command(argv, check=check))
        self._pause: Callable[[float], None] = time.sleep if runner is None else (lambda _: None)
        self._root = StackRoot(config, self._runner)
        # The kernel's huge page pool; a test that fakes the host passes its own or none.
        self._pool = pool if pool is not None or runner is not None else HugePagePool()

    # ---- public commands -------------------------------------------------

    def up(self) -> StackStatus:
        """Provision what is missing, start what is stopped; a no-op when all is up."""
        require_root()
        self.config.directory.mkdir(parents=True, exist_ok=True)
        self._bootstrap_root()
        self._install_packages()
        self._init_cluster()
        self._start_postgres()
        self._create_databases()
        self._start_redis()
        return self.status()

    def down(self) -> None:
        """Stop both servers cleanly; the data stays."""
        require_root()
        if self._root.postgres_running():
            self._root.run_as(
                "postgres", [f"{PG_BIN}/pg_ctl", "-D", PG_DATA, "-m", "fast", "-w", "stop"]
            )
            self._say("postgres: stopped")
        else:
            self._say("postgres: not running")
        with pool_lock(self._pool):
            self._release_huge_pages()
        if self._root.redis_running():
            self._root.redis_cli("shutdown", "nosave", check=False)
            wait_until(lambda: not self._root.redis_running(), 10.0, "redis to stop")
            self._say("redis: stopped")
        else:
            self._say("redis: not running")

    def status(self) -> StackStatus:
        """Versions and URLs of what runs now."""
        pg_up = self._root.postgres_running()
        redis_up = self._root.redis_running()
        pg_version = age = vector = redis_version = huge_pages = None
        if pg_up:
            pg_version = self._root.psql("SHOW server_version")
            huge_pages = self._root.psql("SHOW huge_pages_status")
            age = self._root.psql(
                "SELECT default_version FROM pg_available_extensions WHERE name = 'age'"
            )
            vector = self._root.psql(
                "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
            )
        if redis_up:
            info = self._root.redis_cli("info", "server").stdout.splitlines()
            versions = [line.split(":", 1)[1] for line in info if line.startswith("redis_version:")]
            redis_version = versions[0].strip() if versions else None
        return StackStatus(
            provisioned=self._marker("cluster").exists(),
            postgres_running=pg_up,
            redis_running=redis_up,
            postgres_version=pg_version or None,
            age_version=age or None,
            pgvector_version=vector or None,
            redis_version=redis_version,
            postgres_url=self.config.postgres_url,
            redis_url=self.config.redis_url,
            huge_pages=huge_pages or None,
        )

    # ---- provisioning steps ----------------------------------------------

    def _marker(self, step: str) -> Path:
        return self.config.directory / f".done-{step}"

    def _bootstrap_root(self) -> None:
        marker = self._marker("debootstrap")
        if marker.exists():
            return
        root = self.config.root
        if root.exists():
            self._say(f"debootstrap: removing the unfinished root at {root}")
            shutil.rmtree(root)
        self._ensure_host_debootstrap()
        self._say(f"debootstrap: {self.config.suite} minbase into {root} (30-60 s)")
        started = time.monotonic()
        result = self._runner(
            ["debootstrap", "--variant=minbase", self.config.suite, str(root), self.config.mirror],
            False,
        )
        if result.returncode != 0:
            raise StackError(
                f"debootstrap of {self.config.suite} from {self.config.mirror} failed "
                f"(is the Debian mirror reachable?): {output_tail(result)}"
            )
        # Services must never start inside the root on their own (no init runs there).
        policy = root / "usr/sbin/policy-rc.d"
        policy.write_text("#!/bin/sh\nexit 101\n")
        policy.chmod(0o755)
        marker.touch()
        self._say(f"debootstrap: done in {time.monotonic() - started:.0f} s")

    def _install_packages(self) -> None:
        wanted = hashlib.sha256(" ".join(PACKAGES).encode()).hexdigest()[:12]
        marker = self._marker(f"packages-{wanted}")
        if marker.exists():
            return
        self._say(f"packages: installing {', '.join(PACKAGES)} (15-30 s)")
        env = ["env", "DEBIAN_FRONTEND=noninteractive", "LC_ALL=C"]
        # A killed dpkg run leaves half-configured packages: finish them first.
        self._root.run([*env, "dpkg", "--configure", "-a"], check=False)
        for args in (
            ["apt-get", "update", "-q"],
            ["apt-get", "install", "-y", "-q", "--no-install-recommends", "-f", *PACKAGES],
        ):
            result = self._root.run([*env, *args], check=False)
            if result.returncode != 0:
                raise StackError(
                    f"`{' '.join(args[:2])}` in the stack root failed "
                    f"(is the Debian mirror reachable?): {output_tail(result)}"
                )
        marker.touch()

    def _init_cluster(self) -> None:
        marker = self._marker("cluster")
        data = self._root.host(PG_DATA)
        if marker.exists() and (data / "PG_VERSION").exists():
            return
        if data.exists():
            self._say("postgres: removing an unfinished cluster")
            shutil.rmtree(data)
        for path in (PG_DATA, LOG_DIR, SOCKET_DIR):
            self._root.host(path).mkdir(parents=True, exist_ok=True)
            self._root.run(["chown", "postgres:postgres", path])
        self._say("postgres: initdb")
        self._root.run_as(
            "postgres",
            [
                f"{PG_BIN}/initdb",
                "-D",
                PG_DATA,
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
            ],
        )
        # Trust on loopback only: the server listens on 127.0.0.1 and the socket in the root.
        (data / "pg_hba.conf").write_text("local all all trust\nhost all all 127.0.0.1/32 trust\n")
        marker.touch()

    def _write_postgres_conf(self) -> None:
        conf = self._root.host(PG_DATA) / "postgresql.auto.conf"
        conf.write_text(postgres_conf(self.config, SOCKET_DIR, memory_settings()))
        self._root.run(["chown", "postgres:postgres", f"{PG_DATA}/postgresql.auto.conf"])

    def _start_postgres(self) -> None:
        if self._root.postgres_running():
            return
        self._root.host(SOCKET_DIR).mkdir(parents=True, exist_ok=True)
        self._root.run(["chown", "postgres:postgres", SOCKET_DIR])
        self._write_postgres_conf()
        with pool_lock(self._pool):
            self._start_postgres_server()

    def _start_postgres_server(self) -> None:
        self._huge_pages(before_start)
        self._say(f"postgres: starting on 127.0.0.1:{self.config.pg_port}")
        server_log = f"{LOG_DIR}/postgres.log"
        argv = [f"{PG_BIN}/pg_ctl", "-D", PG_DATA, "-l", server_log, "-w", "-t", "60", "start"]
        # After a crash the old server's processes can take a moment to exit and release
        # the data directory's lock file; a refused start is retried a few times.
        for attempt in range(1, _START_ATTEMPTS + 1):
            result = self._root.run_as("postgres", argv, check=False)
            if result.returncode == 0 or attempt == _START_ATTEMPTS:
                break
            self._say("postgres: start refused, retrying")
            self._pause(2.0)
        if result.returncode != 0:
            self._release_huge_pages()
            log = self._root.host(LOG_DIR) / "postgres.log"
            tail = log.read_text(errors="replace")[-1500:] if log.exists() else ""
            raise StackError(f"postgres did not start: {output_tail(result)}\n{tail}")
        self._huge_pages(after_start)

    def _huge_pages(self, step: Callable[[StackRoot, HugePagePool, StackConfig], str]) -> None:
        """Reserve or check the kernel's huge pages around a start (``stack_hugepages``)."""
        if self._pool is not None and (said := step(self._root, self._pool, self.config)):
            self._say(f"postgres: {said}")

    def _release_huge_pages(self) -> None:
        self._huge_pages(lambda _root, pool, config: release(pool, config.huge_page_record))

    def _create_databases(self) -> None:
        for name in self.config.databases:
            if not name.replace("_", "a").isalnum():
                raise StackError(f"database name {name!r} must be letters, digits and _")
            # `name` passed the check above, so it is safe to splice.
            exists = self._root.psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}'")  # noqa: S608
            if exists != "1":
                self._root.psql(f'CREATE DATABASE "{name}"')
                self._say(f"postgres: created database {name}")

    def _start_redis(self) -> None:
        if self._root.redis_running():
            return
        for path in (REDIS_DIR, LOG_DIR):
            self._root.host(path).mkdir(parents=True, exist_ok=True)
        self._root.run(["chown", "redis:redis", REDIS_DIR])
        conf = self._root.host(REDIS_DIR) / "redis.conf"
        # No persistence on purpose: Redis carries only live fan-out, router coordination
        # and TTL'd session state; everything durable is in PostgreSQL.
        conf.write_text(
            f"port {self.config.redis_port}\n"
            "bind 127.0.0.1\n"
            "protected-mode yes\n"
            "daemonize yes\n"
            f"pidfile {REDIS_DIR}/redis.pid\n"
            f"logfile {REDIS_DIR}/redis.log\n"
            f"dir {REDIS_DIR}\n"
            'save ""\n'
            "appendonly no\n"
            "maxclients 10000\n"
        )
        self._say(f"redis: starting on 127.0.0.1:{self.config.redis_port}")
        self._root.run_as("redis", ["/usr/bin/redis-server", f"{REDIS_DIR}/redis.conf"])
        wait_until(self._root.redis_running, 15.0, "redis to answer PING")

    def _ensure_host_debootstrap(self) -> None:
        if shutil.which("debootstrap", path="/usr/sbin:/usr/bin:/sbin:/bin"):
            return
        self._say("host: installing debootstrap with apt-get")
        for argv in (
            ["apt-get", "update", "-q"],
            ["apt-get", "install", "-y", "-q", "debootstrap"],
        ):
            result = self._runner(argv, False)
            if result.returncode != 0:
                raise StackError(
                    "could not install debootstrap on the host (are the Debian registries "
                    f"reachable?): {output_tail(result)}"
                )

"""The local stack's step logic: idempotent, and a killed provisioning is repaired."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kenning.cli import localstack
from kenning.cli.localstack import LocalStack, StackConfig
from kenning.cli.stack_process import StackError


class FakeHost:
    """Plays the commands `LocalStack` runs, keeping server state in memory."""

    def __init__(
        self, root: Path, *, debootstrap_fails: bool = False, refused_starts: int = 0
    ) -> None:
        self.root = root
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
            pg_bin = self.root / localstack._PG_BIN.lstrip("/")
            pg_bin.mkdir(parents=True, exist_ok=True)
            (pg_bin / "pg_isready").touch()
            (self.root / "usr/bin/redis-cli").touch()
        if name == "initdb":
            (self.root / "srv/kenning/pg/PG_VERSION").write_text("17")
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
        return "17.11" if "server_version" in sql else "1.5.0"

    def ran(self, program: str) -> int:
        return sum(1 for argv in self.calls if any(Path(a).name == program for a in argv[:4]))


@pytest.fixture(autouse=True)
def _as_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 0)
    monkeypatch.setattr("shutil.which", lambda *_a, **_k: "/usr/sbin/debootstrap")


def _stack(tmp_path: Path, host: FakeHost) -> LocalStack:
    config = StackConfig(directory=tmp_path, databases=("kenning",))
    return LocalStack(config, say=lambda _line: None, runner=host)


def test_first_up_provisions_everything_and_starts_both_servers(tmp_path: Path) -> None:
    host = FakeHost(tmp_path / "root")
    status = _stack(tmp_path, host).up()
    assert host.ran("debootstrap") == 1
    assert host.ran("initdb") == 1
    assert status.postgres_running and status.redis_running
    assert host.databases == {"kenning"}
    conf = (tmp_path / "root/srv/kenning/pg/postgresql.auto.conf").read_text()
    assert "shared_preload_libraries = 'age'" in conf
    assert "listen_addresses = '127.0.0.1'" in conf
    hba = (tmp_path / "root/srv/kenning/pg/pg_hba.conf").read_text()
    assert "0.0.0.0" not in hba and "127.0.0.1/32 trust" in hba


def test_second_up_changes_nothing(tmp_path: Path) -> None:
    host = FakeHost(tmp_path / "root")
    stack = _stack(tmp_path, host)
    stack.up()
    host.calls.clear()
    stack.up()
    assert host.ran("debootstrap") == 0
    assert host.ran("apt-get") == 0
    assert host.ran("initdb") == 0
    assert host.ran("pg_ctl") == 0
    assert host.ran("redis-server") == 0


def test_killed_debootstrap_is_redone_from_scratch(tmp_path: Path) -> None:
    leftover = tmp_path / "root/half-written-file"
    leftover.parent.mkdir(parents=True)
    leftover.write_text("partial")
    host = FakeHost(tmp_path / "root")
    _stack(tmp_path, host).up()
    assert not leftover.exists()
    assert host.ran("debootstrap") == 1


def test_killed_initdb_is_redone(tmp_path: Path) -> None:
    host = FakeHost(tmp_path / "root")
    stack = _stack(tmp_path, host)
    stack.up()
    stack.down()
    # A cluster directory without the step's marker is what a kill during initdb leaves.
    (tmp_path / ".done-cluster").unlink()
    host.calls.clear()
    stack.up()
    assert host.ran("initdb") == 1
    assert host.ran("debootstrap") == 0


def test_interrupted_package_install_finishes_dpkg_first(tmp_path: Path) -> None:
    host = FakeHost(tmp_path / "root")
    stack = _stack(tmp_path, host)
    stack.up()
    for marker in tmp_path.glob(".done-packages-*"):
        marker.unlink()
    host.calls.clear()
    stack.up()
    dpkg = next(i for i, a in enumerate(host.calls) if "dpkg" in a)
    install = next(i for i, a in enumerate(host.calls) if "install" in a and "apt-get" in a)
    assert dpkg < install


def test_unreachable_mirror_is_a_clear_error(tmp_path: Path) -> None:
    host = FakeHost(tmp_path / "root", debootstrap_fails=True)
    with pytest.raises(StackError, match="mirror reachable"):
        _stack(tmp_path, host).up()
    assert not (tmp_path / ".done-debootstrap").exists()


def test_not_root_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 1000)
    with pytest.raises(StackError, match="needs root"):
        _stack(tmp_path, FakeHost(tmp_path / "root")).up()


def test_down_stops_both(tmp_path: Path) -> None:
    host = FakeHost(tmp_path / "root")
    stack = _stack(tmp_path, host)
    stack.up()
    stack.down()
    status = stack.status()
    assert not status.postgres_running and not status.redis_running


def test_a_start_refused_right_after_a_crash_is_retried(tmp_path: Path) -> None:
    host = FakeHost(tmp_path / "root", refused_starts=2)
    status = _stack(tmp_path, host).up()
    assert status.postgres_running
    starts = [a for a in host.calls if "start" in a and any(x.endswith("pg_ctl") for x in a)]
    assert len(starts) == 3  # two refusals, then the start that took


def test_a_start_that_keeps_failing_is_a_clear_error(tmp_path: Path) -> None:
    host = FakeHost(tmp_path / "root", refused_starts=10)
    with pytest.raises(StackError, match="postgres did not start"):
        _stack(tmp_path, host).up()

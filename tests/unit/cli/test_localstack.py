"""The local stack's step logic: idempotent, and a killed provisioning is repaired."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenning.cli.localstack import LocalStack, StackConfig
from kenning.cli.stack_config import machine_memory, memory_settings
from kenning.cli.stack_process import StackError
from tests.fakes.stack_host import FakeHost


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


def test_postgres_memory_follows_the_machine(tmp_path: Path) -> None:
    gib = 2**30
    assert memory_settings(24 * gib) == {
        "shared_buffers": "6144MB",
        "effective_cache_size": "12288MB",
    }
    assert memory_settings(256 * gib)["shared_buffers"] == "8192MB"  # capped
    assert memory_settings(256 * 2**20) == {  # a tiny machine keeps PostgreSQL's floor
        "shared_buffers": "128MB",
        "effective_cache_size": "128MB",
    }
    _stack(tmp_path, FakeHost(tmp_path / "root")).up()
    conf = (tmp_path / "root/srv/kenning/pg/postgresql.auto.conf").read_text()
    assert f"shared_buffers = '{memory_settings()['shared_buffers']}'" in conf


def test_a_cgroup_memory_limit_below_the_machine_counts(tmp_path: Path) -> None:
    limit = tmp_path / "memory.max"
    limit.write_text("2147483648\n")
    assert machine_memory(limit) == 2 * 2**30
    limit.write_text("max\n")
    assert machine_memory(limit) > 2**20
    assert machine_memory(tmp_path / "absent") == machine_memory(limit)

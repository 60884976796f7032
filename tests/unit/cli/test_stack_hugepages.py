"""`kenning stack up` reserves huge pages for PostgreSQL's shared memory, `down` gives back
exactly what `up` added, and a kernel that cannot give them leaves the pool as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from kenning.cli.localstack import LocalStack, StackConfig
from kenning.cli.stack_hugepages import HugePagePool
from tests.fakes.stack_host import FakeHost, FakeHugePages

NEEDED = 3_100


@pytest.fixture(autouse=True)
def _as_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.geteuid", lambda: 0)
    monkeypatch.setattr("shutil.which", lambda *_a, **_k: "/usr/sbin/debootstrap")


def _stack(
    tmp_path: Path, host: FakeHost, pool: HugePagePool, said: list[str], *, huge: bool = True
) -> LocalStack:
    config = StackConfig(directory=tmp_path, databases=("kenning",), huge_pages=huge)
    return LocalStack(config, say=said.append, runner=host, pool=pool)


def _conf(tmp_path: Path) -> str:
    return (tmp_path / "root/srv/kenning/pg/postgresql.auto.conf").read_text()


def test_up_reserves_what_postgres_needs_and_down_gives_it_back(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path, total=40)  # 40 pages some other program reserved
    pool.set(total=40, free=40, reserved=40)
    host, said = FakeHost(tmp_path / "root", huge_pages_needed=NEEDED), list[str]()
    stack = _stack(tmp_path, host, pool, said)
    stack.up()
    assert pool.total() == 40 + NEEDED
    assert "huge_pages = 'try'" in _conf(tmp_path)
    assert any(f"reserved {NEEDED} huge pages" in line for line in said)
    assert (tmp_path / "hugepages-added").read_text() == f"{NEEDED}\n"
    stack.down()
    assert pool.total() == 40  # the other program's pages stay
    assert not (tmp_path / "hugepages-added").exists()


def test_pages_already_free_are_used_without_growing_the_pool(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path, total=NEEDED + 10)
    host, said = FakeHost(tmp_path / "root", huge_pages_needed=NEEDED), list[str]()
    stack = _stack(tmp_path, host, pool, said)
    stack.up()
    stack.down()
    assert pool.total() == NEEDED + 10
    assert not any("huge pages" in line for line in said)


def test_after_a_crash_up_does_not_reserve_twice(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    host, said = FakeHost(tmp_path / "root", huge_pages_needed=NEEDED), list[str]()
    stack = _stack(tmp_path, host, pool, said)
    stack.up()
    host.pg_up = False  # killed: its pages are free again, the count stays
    stack.up()
    assert pool.total() == NEEDED
    stack.down()
    assert pool.total() == 0


def test_a_short_grant_is_undone_and_postgres_runs_in_normal_pages(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path, total=8, limit=1_000)  # fragmented memory
    host, said = FakeHost(tmp_path / "root", huge_pages_needed=NEEDED), list[str]()
    status = _stack(tmp_path, host, pool, said).up()
    assert status.postgres_running
    assert pool.total() == 8
    assert not (tmp_path / "hugepages-added").exists()
    assert any(f"the kernel gave 992 of {NEEDED - 8} pages" in line for line in said)
    assert "huge_pages = 'try'" in _conf(tmp_path)  # PostgreSQL falls back by itself


def test_a_system_without_huge_pages_changes_nothing(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    host, said = FakeHost(tmp_path / "root", huge_pages_needed=-1), list[str]()
    _stack(tmp_path, host, pool, said).up()
    assert pool.total() == 0
    assert any("no huge pages on this system" in line for line in said)


def test_switched_off_neither_asks_nor_maps_them(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    host, said = FakeHost(tmp_path / "root", huge_pages_needed=NEEDED), list[str]()
    _stack(tmp_path, host, pool, said, huge=False).up()
    assert pool.total() == 0
    assert "huge_pages = 'off'" in _conf(tmp_path)
    assert not any("-C" in argv for argv in host.calls)


def test_a_failed_start_gives_the_pages_back(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    host = FakeHost(tmp_path / "root", huge_pages_needed=NEEDED, refused_starts=10)
    with pytest.raises(Exception, match="postgres did not start"):
        _stack(tmp_path, host, pool, []).up()
    assert pool.total() == 0


def test_two_stacks_each_give_back_only_their_own(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    first = _stack(tmp_path / "a", FakeHost(tmp_path / "a/root", huge_pages_needed=NEEDED),
                   pool, [])  # fmt: skip
    second = _stack(tmp_path / "b", FakeHost(tmp_path / "b/root", huge_pages_needed=100),
                    pool, [])  # fmt: skip
    first.up()
    pool.set(total=NEEDED, free=NEEDED, reserved=NEEDED)  # the first server mapped them
    second.up()
    assert pool.total() == NEEDED + 100
    first.down()
    assert pool.total() == 100  # the second server's pages stay
    second.down()
    assert pool.total() == 0


def test_after_a_reboot_the_count_starts_again(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    (tmp_path / "hugepages-added").write_text("5000\n")  # the kernel's pool is back at 0
    stack = _stack(tmp_path, FakeHost(tmp_path / "root", huge_pages_needed=NEEDED), pool, [])
    stack.up()
    assert (tmp_path / "hugepages-added").read_text() == f"{NEEDED}\n"
    stack.down()
    assert pool.total() == 0


def test_a_kernel_without_the_pool_files_runs_in_normal_pages(tmp_path: Path) -> None:
    pool = HugePagePool(tmp_path / "absent/nr_hugepages", tmp_path / "absent/meminfo")
    host, said = FakeHost(tmp_path / "root", huge_pages_needed=NEEDED), list[str]()
    status = _stack(tmp_path, host, pool, said).up()
    assert status.postgres_running
    assert any("the pool cannot grow (No such file or directory)" in line for line in said)
    assert not (tmp_path / "hugepages-added").exists()

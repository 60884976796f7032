"""`kenning stack up` reserves huge pages for PostgreSQL's shared memory, `down` gives back
exactly what `up` added, and a kernel that cannot give them leaves the pool as it was."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from kenning.cli.localstack import LocalStack, StackConfig
from kenning.cli.stack_hugepages import HugePagePool
from kenning.cli.stack_process import StackError
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


def _host(tmp_path: Path, needed: int = NEEDED, **options: object) -> FakeHost:
    return FakeHost(tmp_path / "root", huge_pages_needed=needed, **options)  # type: ignore[arg-type]


def _conf(tmp_path: Path) -> str:
    return (tmp_path / "root/srv/kenning/pg/postgresql.auto.conf").read_text()


def _record(tmp_path: Path) -> Path:
    return tmp_path / "hugepages-added"


def test_up_reserves_what_postgres_needs_and_down_gives_it_back(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    pool.set(total=40, free=40, reserved=40)  # 40 pages another program holds
    said: list[str] = []
    stack = _stack(tmp_path, _host(tmp_path), pool, said)
    status = stack.up()
    assert pool.total() == 40 + NEEDED
    assert status.huge_pages == "on"
    assert "huge_pages = 'try'" in _conf(tmp_path)
    assert any(f"reserved {NEEDED} huge pages (6.1 GB)" in line for line in said)
    assert _record(tmp_path).read_text() == f"{NEEDED} boot-1\n"
    stack.down()
    assert pool.total() == 40  # the other program's pages stay
    assert not _record(tmp_path).exists()
    assert any(f"{NEEDED} huge pages given back" in line for line in said)


def test_pages_already_free_are_used_without_growing_the_pool(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path, total=NEEDED + 10)
    said: list[str] = []
    stack = _stack(tmp_path, _host(tmp_path), pool, said)
    stack.up()
    assert pool.total() == NEEDED + 10 and not _record(tmp_path).exists()
    stack.down()
    assert pool.total() == NEEDED + 10
    assert not any("huge pages" in line for line in said)


def test_after_a_crash_up_does_not_reserve_twice(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    host = _host(tmp_path)
    stack = _stack(tmp_path, host, pool, [])
    stack.up()
    host.pg_up = False  # killed: its pages are free again, the count stays
    stack.up()
    assert pool.total() == NEEDED
    stack.down()
    assert pool.total() == 0


def test_a_count_from_before_a_reboot_takes_nothing_off(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    stack = _stack(tmp_path, _host(tmp_path), pool, [])
    stack.up()
    pool.reboot(5_000)  # an administrator's pool at boot; the old count is still on disk
    stack.down()  # down alone, straight after the reboot
    assert pool.total() == 5_000
    _record(tmp_path).write_text(f"{NEEDED} boot-1\n")
    stack.up()  # enough pages free: nothing added, the stale count dropped
    stack.down()
    assert pool.total() == 5_000


def test_after_a_reboot_the_count_starts_again(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    _record(tmp_path).write_text("5000 boot-0\n")  # the kernel's pool is back at 0
    stack = _stack(tmp_path, _host(tmp_path), pool, [])
    stack.up()
    assert _record(tmp_path).read_text() == f"{NEEDED} boot-1\n"
    stack.down()
    assert pool.total() == 0


def test_a_short_grant_is_undone_and_postgres_runs_in_normal_pages(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path, total=8, limit=1_000)  # fragmented memory
    said: list[str] = []
    status = _stack(tmp_path, _host(tmp_path), pool, said).up()
    assert status.postgres_running
    assert pool.total() == 8
    assert not _record(tmp_path).exists()
    assert any(f"the kernel gave 992 of {NEEDED - 8} pages" in line for line in said)
    assert "huge_pages = 'try'" in _conf(tmp_path)  # PostgreSQL falls back by itself


def test_pages_the_server_did_not_map_are_given_back(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    said: list[str] = []
    _stack(tmp_path, _host(tmp_path, maps_huge_pages=False), pool, said).up()
    assert pool.total() == 0
    assert any("did not map huge pages; 3100 huge pages given back" in line for line in said)


def test_huge_pages_of_another_size_are_not_asked_for(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path, page_kb=1_048_576)  # 1 GB pages
    said: list[str] = []
    _stack(tmp_path, _host(tmp_path), pool, said).up()
    assert pool.total() == 0
    assert any("huge pages are 1048576 kB, not 2 MB" in line for line in said)


def test_a_system_without_huge_pages_changes_nothing(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    said: list[str] = []
    _stack(tmp_path, _host(tmp_path, needed=-1), pool, said).up()
    assert pool.total() == 0
    assert any("no huge pages on this system" in line for line in said)


def test_switched_off_neither_asks_nor_maps_them(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    host = _host(tmp_path)
    _stack(tmp_path, host, pool, [], huge=False).up()
    assert pool.total() == 0
    assert "huge_pages = 'off'" in _conf(tmp_path)
    assert not any("-C" in argv for argv in host.calls)


def test_switching_off_gives_back_what_an_earlier_up_reserved(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    host = _host(tmp_path)
    _stack(tmp_path, host, pool, []).up()
    assert pool.total() == NEEDED
    host.pg_up = False  # stopped outside the stack
    _stack(tmp_path, host, pool, [], huge=False).up()
    assert pool.total() == 0


def test_a_failed_start_gives_the_pages_back(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    said: list[str] = []
    with pytest.raises(StackError, match="postgres did not start"):
        _stack(tmp_path, _host(tmp_path, refused_starts=10), pool, said).up()
    assert any(f"reserved {NEEDED} huge pages" in line for line in said)
    assert any(f"{NEEDED} huge pages given back" in line for line in said)
    assert pool.total() == 0


def test_a_kernel_without_the_pool_files_runs_in_normal_pages(tmp_path: Path) -> None:
    absent = tmp_path / "absent"
    pool = HugePagePool(
        absent / "nr_hugepages", absent / "meminfo", absent / "boot_id", tmp_path / "lock"
    )
    said: list[str] = []
    status = _stack(tmp_path, _host(tmp_path), pool, said).up()
    assert status.postgres_running
    assert any("the pool cannot grow (No such file or directory)" in line for line in said)
    assert not _record(tmp_path).exists()


def test_a_pool_that_cannot_shrink_keeps_the_count_and_says_so(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path)
    said: list[str] = []
    stack = _stack(tmp_path, _host(tmp_path), pool, said)
    stack.up()
    pool.size_file.rename(tmp_path / "moved")  # as if /proc had become read-only
    stack.down()
    assert _record(tmp_path).exists()
    assert any("could not give back huge pages" in line for line in said)


def test_an_unreadable_count_is_no_count(tmp_path: Path) -> None:
    pool = FakeHugePages.in_dir(tmp_path, total=10)
    _record(tmp_path).write_text("garbage\n")
    stack = _stack(tmp_path, _host(tmp_path), pool, [])
    stack.down()
    assert pool.total() == 10
    assert not _record(tmp_path).exists()


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


def test_a_start_waits_for_another_stack_holding_the_pool(tmp_path: Path) -> None:
    """Two stacks starting at once would both find the same pages missing and count them
    twice; the machine-wide lock makes the second wait until the first has mapped them."""
    pool = FakeHugePages.in_dir(tmp_path)
    said: list[str] = []
    stack = _stack(tmp_path, _host(tmp_path), pool, said)
    started = threading.Event()

    def up() -> None:
        stack.up()
        started.set()

    with pool.locked():  # another stack between its reservation and its start
        worker = threading.Thread(target=up)
        worker.start()
        assert not started.wait(0.5)
        assert pool.total() == 0  # it has not reserved while the lock was held
    worker.join(10)
    assert started.is_set()
    assert pool.total() == NEEDED
    stack.down()
    assert pool.total() == 0

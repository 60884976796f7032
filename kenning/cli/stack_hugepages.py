"""Huge pages for the local stack's PostgreSQL: its shared memory (a quarter of the machine)
mapped in 2 MB pages instead of 4 kB ones.

At a million chunks a write walks thousands of shared buffers (an HNSW insert visits the
partition's graph, the BM25 postings go to random leaves of a 4.6 GB btree), and the same
ingest managed 19 % fewer documents a second with the buffers in 4 kB pages than in 2 MB
ones (medians of runs at a million chunks; docs/local-stack.md). Linux hands a program
huge pages only from a pool the administrator reserves (``vm.nr_hugepages``), so ``kenning
stack up`` reserves what PostgreSQL asks for (``postgres -C
shared_memory_size_in_huge_pages``) and ``kenning stack down`` gives it back. The pages
added are counted in a file beside the stack, with the boot's id: ``down`` returns exactly
those, whatever other stacks or programs reserved meanwhile, and a count from before a
reboot counts for nothing. The pages stay reserved from ``up`` to ``down`` (or the next
boot), also while the server is stopped or after it crashed. When the kernel cannot give
them (memory too fragmented, a read-only ``/proc``, huge pages of another size) the pool is
left as it was, and when the started server did not map them (a cgroup's hugetlb limit) they
are given back; PostgreSQL then runs in normal pages (``huge_pages = try``): slower at size,
never refused.
"""

from __future__ import annotations

import fcntl
import tempfile
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path

from kenning.cli.stack_config import StackConfig
from kenning.cli.stack_process import output_tail
from kenning.cli.stack_root import PG_BIN, PG_DATA, StackRoot

PAGE_KB = 2048  # the size PostgreSQL counts in when it cannot read the host's meminfo


@dataclass(frozen=True, slots=True)
class HugePagePool:
    """The kernel's huge page pool, through its files (other files in tests)."""

    size_file: Path = Path("/proc/sys/vm/nr_hugepages")
    meminfo: Path = Path("/proc/meminfo")
    boot_id_file: Path = Path("/proc/sys/kernel/random/boot_id")
    # One pool per machine, so one lock per machine: /run/lock is Debian's place for them.
    lock_file: Path = Path("/run/lock/kenning-hugepages.lock")

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the machine's huge-page lock: two stacks starting at once would both find the
        same pages missing (or the other's reserved pages still free) and count them twice.
        Taken once per start, from reserving until the server has mapped its pages."""
        lock = self.lock_file
        if not lock.parent.is_dir():  # a system without /run/lock
            lock = Path(tempfile.gettempdir()) / lock.name
        with lock.open("a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            yield  # closing the file releases the lock

    def counts(self) -> dict[str, int]:
        """``HugePages_Total``, ``_Free``, ``_Rsvd`` and ``Hugepagesize`` (kB) from meminfo."""
        found = {}
        for line in self.meminfo.read_text().splitlines():
            name, _, value = line.partition(":")
            if name.startswith(("HugePages_", "Hugepagesize")):
                found[name] = int(value.split()[0])
        return found

    def available(self) -> int:
        """Pages no program has mapped or reserved yet."""
        counts = self.counts()
        return counts.get("HugePages_Free", 0) - counts.get("HugePages_Rsvd", 0)

    def total(self) -> int:
        return int(self.size_file.read_text().strip() or 0)

    def resize(self, pages: int) -> int:
        """Ask for a pool of ``pages``; how many the kernel has now (it may give fewer)."""
        self.size_file.write_text(f"{pages}\n")
        return self.total()

    def boot(self) -> str:
        """This boot's id: a count written under another one is of a pool that is gone."""
        return self.boot_id_file.read_text().strip()


def pool_lock(pool: HugePagePool | None) -> AbstractContextManager[None]:
    """``pool``'s lock, or none without a pool. Take it once per caller: a second ``flock``
    from the same process, on another open file, would wait for the first forever."""
    return pool.locked() if pool is not None else nullcontext()


@dataclass(frozen=True, slots=True)
class Reservation:
    """What ``reserve`` did: pages PostgreSQL needs, pages added, and why not if it failed."""

    needed: int
    added: int
    refused: str = ""


def _counted(pool: HugePagePool, record: Path) -> int:
    """Pages ``record`` says ``reserve`` added in this boot; 0 for a missing, unreadable or
    earlier boot's record."""
    if not record.exists():
        return 0
    count, _, boot = record.read_text().strip().partition(" ")
    return int(count) if count.isdigit() and boot == pool.boot() else 0


def _count(pool: HugePagePool, record: Path, pages: int) -> None:
    if pages:
        record.write_text(f"{pages} {pool.boot()}\n")
    else:
        record.unlink(missing_ok=True)


def reserve(pool: HugePagePool, needed: int, record: Path) -> Reservation:
    """Make ``needed`` huge pages available, growing the pool by what is missing and adding
    that to the count in ``record`` (written first: a kill after the growth leaves it
    counted); on a short grant the pool and the count go back to what they were."""
    try:
        size = pool.counts().get("Hugepagesize", 0)
        if size != PAGE_KB:
            return Reservation(needed, 0, f"the kernel's huge pages are {size} kB, not 2 MB")
        missing = needed - pool.available()
        counted = min(_counted(pool, record), pool.total())
        _count(pool, record, counted)  # drops an earlier boot's count
        if missing <= 0:
            return Reservation(needed, 0)
        before = pool.total()
        _count(pool, record, counted + missing)
        granted = pool.resize(before + missing) - before
        if granted < missing:
            pool.resize(before)
            _count(pool, record, counted)
            return Reservation(needed, 0, f"the kernel gave {granted} of {missing} pages")
    except OSError as error:  # no pool files (no hugetlb), or a read-only /proc
        return Reservation(needed, 0, f"the pool cannot grow ({error.strerror})")
    return Reservation(needed, granted)


def release(pool: HugePagePool, record: Path) -> str:
    """Shrink the pool by the pages ``record`` counts (what ``reserve`` added, and no more:
    another stack's or program's pages stay); what to tell the user ("" when nothing was
    counted)."""
    if not record.exists():
        return ""
    try:
        counted = _counted(pool, record)
        before = pool.total()
        after = pool.resize(before - min(counted, before)) if counted else before
    except OSError as error:
        return f"could not give back huge pages ({error.strerror}); they stay counted in {record}"
    record.unlink()
    return f"{before - after} huge pages given back (vm.nr_hugepages)" if before > after else ""


def _gigabytes(pages: int) -> str:
    return f"{pages * PAGE_KB / 2**20:.1f} GB"


def before_start(root: StackRoot, pool: HugePagePool, config: StackConfig) -> str:
    """``reserve`` what the stopped server in ``root`` will map at its written settings, or,
    switched off, give back what an earlier ``up`` reserved; what to tell the user."""
    if not config.huge_pages:
        return release(pool, config.huge_page_record)
    asked = root.run_as(
        "postgres",
        [f"{PG_BIN}/postgres", "-D", PG_DATA, "-C", "shared_memory_size_in_huge_pages"],
        check=False,
    )
    if asked.returncode != 0:
        return f"could not ask for huge pages ({output_tail(asked)}); normal pages"
    text = asked.stdout.strip()
    needed = int(text) if text.isdigit() else 0  # -1: no huge pages on this platform
    if needed <= 0:
        return "no huge pages on this system; shared memory in normal pages"
    done = reserve(pool, needed, config.huge_page_record)
    if done.refused:
        return f"no huge pages ({done.refused}); shared memory in normal pages"
    if done.added:
        return (
            f"reserved {done.added} huge pages ({_gigabytes(done.added)}) for shared memory "
            "in vm.nr_hugepages until `kenning stack down`"
        )
    return ""


def after_start(root: StackRoot, pool: HugePagePool, config: StackConfig) -> str:
    """Give the pages back when the running server did not map them after all (a cgroup's
    hugetlb limit, another page size); what to tell the user."""
    if not config.huge_pages or root.psql("SHOW huge_pages_status") == "on":
        return ""
    said = release(pool, config.huge_page_record)
    return f"PostgreSQL did not map huge pages; {said}" if said else ""

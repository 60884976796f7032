"""Huge pages for the local stack's PostgreSQL: its shared memory (a quarter of the machine)
mapped in 2 MB pages instead of 4 kB ones.

At a million chunks a write walks thousands of shared buffers (an HNSW insert visits the
partition's graph, the BM25 postings go to random leaves of a 4.6 GB btree), and the same
ingest managed 14-21 % fewer documents a second with the buffers in 4 kB pages than in
2 MB ones (README, "The local stack"; this VM exposes no TLB counters to say more). Linux
hands a program huge pages only from a pool the administrator reserves
(``vm.nr_hugepages``), so ``kenning stack up`` reserves what PostgreSQL asks for (``postgres
-C shared_memory_size_in_huge_pages``) and ``kenning stack down`` gives it back: the pages
added are counted in a file beside the stack, so ``down`` returns exactly those, whatever
other stacks or programs reserved meanwhile.
When the kernel cannot give the pages (memory too fragmented, no huge page support, a
container) the reservation is undone and PostgreSQL runs in normal pages (``huge_pages =
try``): slower at size, never refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kenning.cli.stack_root import PG_BIN, PG_DATA, StackRoot


@dataclass(frozen=True, slots=True)
class HugePagePool:
    """The kernel's huge page pool, through its files (other files in tests)."""

    size_file: Path = Path("/proc/sys/vm/nr_hugepages")
    meminfo: Path = Path("/proc/meminfo")

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


@dataclass(frozen=True, slots=True)
class Reservation:
    """What ``reserve`` did: pages PostgreSQL needs, pages added, and why not if it failed."""

    needed: int
    added: int
    refused: str = ""


def _recorded(record: Path) -> int:
    return int(record.read_text().strip() or 0) if record.exists() else 0


def reserve(pool: HugePagePool, needed: int, record: Path) -> Reservation:
    """Make ``needed`` huge pages available, growing the pool by what is missing and adding
    that to the count in ``record``; on a short grant the pool goes back to its old size.
    The count never exceeds the pool (after a reboot the kernel starts from its own)."""
    try:
        missing = needed - pool.available()
        if missing <= 0:
            return Reservation(needed, 0)
        before = pool.total()
        granted = pool.resize(before + missing) - before
    except OSError as error:  # no pool files (no hugetlb), or a read-only /proc
        return Reservation(needed, 0, f"the pool cannot grow ({error.strerror})")
    if granted < missing:
        pool.resize(before)
        return Reservation(needed, 0, f"the kernel gave {granted} of {missing} pages")
    record.write_text(f"{min(_recorded(record), before) + granted}\n")
    return Reservation(needed, granted)


def release(pool: HugePagePool, record: Path) -> int:
    """Shrink the pool by the pages ``record`` counts (what ``reserve`` added, and no more:
    another stack's or program's pages stay); pages returned."""
    if not record.exists():
        return 0
    try:
        before = pool.total()
        after = pool.resize(before - min(_recorded(record), before))
    except OSError:  # a read-only /proc now: the count stays for a later down
        return 0
    record.unlink()
    return before - after


def reserve_for_postgres(root: StackRoot, pool: HugePagePool, record: Path) -> str:
    """``reserve`` what the stopped server in ``root`` will map at its written settings;
    what to tell the user ("" when the pages were there already)."""
    asked = root.run_as(
        "postgres",
        [f"{PG_BIN}/postgres", "-D", PG_DATA, "-C", "shared_memory_size_in_huge_pages"],
        check=False,
    )
    text = asked.stdout.strip()
    needed = int(text) if asked.returncode == 0 and text.isdigit() else 0  # -1: unsupported
    if needed <= 0:
        return "no huge pages on this system; shared memory in normal pages"
    done = reserve(pool, needed, record)
    if done.refused:
        return f"no huge pages ({done.refused}); shared memory in normal pages"
    if done.added:
        return (
            f"reserved {done.added} huge pages for shared memory (vm.nr_hugepages); "
            "`kenning stack down` gives them back"
        )
    return ""

"""``keep_freed_memory`` (set at server start): a second 25 MB block after the first is
freed reuses its pages instead of faulting in fresh ones (each fault is kernel time spent
holding the GIL), also when each block is made by a thread of its own, as the server's
worker threads make them; with ``pretouch_heap`` the first block does too. Each case runs in
a fresh interpreter, malloc's settings being per process."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROGRAM = """
import resource, sys, threading
from kenning.heap import free_top, keep_freed_memory, pretouch_heap
if sys.argv[1] in ("kept", "touched"):
    assert keep_freed_memory()
if sys.argv[1] == "touched":
    assert pretouch_heap(64 << 20) >= 64 << 20 and free_top() >= 64 << 20
    assert pretouch_heap(64 << 20) == 0  # enough is free at the top: nothing to touch
faults, done, end = [], threading.Semaphore(0), threading.Event()

def block(letter, stay=False):
    before = resource.getrusage(resource.RUSAGE_THREAD).ru_minflt
    made = letter * (25 << 20)
    faults.append(resource.getrusage(resource.RUSAGE_THREAD).ru_minflt - before)
    del made
    done.release()
    if stay:  # a worker thread lives on, its heap with it
        end.wait()

for letter in (b"x", b"y"):
    if sys.argv[2] == "threads":
        threading.Thread(target=block, args=(letter, True)).start()
        done.acquire()
    else:
        block(letter)
end.set()
print(faults[int(sys.argv[3])])
"""
PAGES = (25 << 20) // 4096


def _faults_of_block(mode: str, where: str, which: int) -> int:
    env = {"PATH": "/usr/bin:/bin"}  # no MALLOC_ARENA_MAX from make test: the call alone
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, mode, where, str(which)],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    return int(done.stdout)


@pytest.mark.parametrize("where", ["main", "threads"])
def test_a_second_large_block_reuses_the_pages_of_the_first(where: str) -> None:
    assert _faults_of_block("kept", where, 1) < PAGES // 10
    # Without it glibc maps the block afresh: every page faults once more.
    assert _faults_of_block("default", where, 1) > PAGES * 9 // 10


@pytest.mark.parametrize("where", ["main", "threads"])
def test_the_first_large_block_finds_pages_touched_at_start(where: str) -> None:
    assert _faults_of_block("touched", where, 0) < PAGES // 10
    assert _faults_of_block("kept", where, 0) > PAGES * 9 // 10  # untouched: all fault

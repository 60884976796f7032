"""``keep_freed_memory`` (set at server start): a second 25 MB block after the first is
freed reuses its pages instead of faulting in fresh ones (each fault is kernel time spent
holding the GIL), also when each block is made by a thread of its own, as the server's
worker threads make them. Each case runs in a fresh interpreter, malloc's settings being per
process."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROGRAM = """
import resource, sys, threading
from kenning.lifespan import keep_freed_memory
if sys.argv[1] == "kept":
    assert keep_freed_memory()
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
print(faults[1])
"""
PAGES = (25 << 20) // 4096


def _faults_of_second_block(mode: str, where: str) -> int:
    env = {"PATH": "/usr/bin:/bin"}  # no MALLOC_ARENA_MAX from make test: the call alone
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, mode, where],
        capture_output=True, text=True, check=True, env=env,
    )  # fmt: skip
    return int(done.stdout)


@pytest.mark.parametrize("where", ["main", "threads"])
def test_a_second_large_block_reuses_the_pages_of_the_first(where: str) -> None:
    assert _faults_of_second_block("kept", where) < PAGES // 10
    # Without it glibc maps the block afresh: every page faults once more.
    assert _faults_of_second_block("default", where) > PAGES * 9 // 10

"""``keep_freed_memory`` (set at server start): a second 25 MB block after the first is
freed reuses its pages instead of faulting in fresh ones (each fault is kernel time spent
holding the GIL). Each case runs in a fresh interpreter, malloc's settings being per
process."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import resource, sys
from kenning.lifespan import keep_freed_memory
if sys.argv[1] == "kept":
    assert keep_freed_memory()
block = b"x" * (25 << 20)
del block
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
block = b"y" * (25 << 20)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""
PAGES = (25 << 20) // 4096


def _faults_of_second_block(mode: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, mode], capture_output=True, text=True, check=True
    )
    return int(done.stdout)


def test_a_second_large_block_reuses_the_pages_of_the_first() -> None:
    assert _faults_of_second_block("kept") < PAGES // 10
    # Without it glibc maps the block afresh: every page faults once more.
    assert _faults_of_second_block("default") > PAGES * 9 // 10

"""The heap a server process keeps: glibc's settings that make large blocks reuse pages
already mapped, and the pages the largest request will need, faulted in once at startup.

A 25 MB document is one str, and Python allocates it holding the GIL. From fresh pages that
is ~6,400 page faults: 60-80 ms of kernel time in a long-lived process, during which every
request waits (measured by tests/integration/ingestion/test_large_inputs_loop.py).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import math

# glibc's mallopt parameters (malloc.h) and the values Kenning sets: blocks up to 32 MiB come
# from the heap, up to 256 MiB of freed heap stays with the process, and every thread shares
# the main thread's heap (so a block one thread freed is there for the next, whichever it is).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8
_MMAP_THRESHOLD, _TRIM_THRESHOLD, ARENAS = 32 * 1024 * 1024, 256 * 1024 * 1024, 1


def keep_freed_memory() -> bool:
    """Make glibc reuse freed memory for large blocks instead of mapping fresh pages.

    A 25 MB document is one str, and Python allocates it holding the GIL. From fresh pages
    that is ~6,400 page faults: 60-80 ms of kernel time in a long-lived process, and every
    request waits (measured by tests/integration/ingestion/test_large_inputs_loop.py). With
    large blocks from the heap and freed heap kept, the next such str reuses pages already
    mapped. Every thread allocates from the main thread's heap (one arena), so a worker
    thread finds the pages any other freed (with a second arena, each new worker thread's
    25 MB block faulted afresh, as in CI; arenas made before the call stay:
    ``MALLOC_ARENA_MAX=1`` in the environment sets it from the start). The price: a process
    keeps up to 256 MiB it freed, and threads outside the GIL share one malloc lock.
    False where libc is not glibc.
    """
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt if name else None
    except (OSError, AttributeError):
        mallopt = None
    if mallopt is None:
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(
        mallopt(_M_MMAP_THRESHOLD, _MMAP_THRESHOLD)
        and mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD)
        and mallopt(_M_ARENA_MAX, ARENAS)
    )


# Below the mmap threshold, so each block comes from the heap and stays there once freed.
_TOUCH_BLOCK = 16 * 1024 * 1024


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def free_top() -> int | None:
    """Bytes free at the top of the main heap (glibc's ``mallinfo2().keepcost``): where the
    next large block comes from. None where libc is not glibc 2.33 or later."""
    name = ctypes.util.find_library("c")
    try:
        mallinfo2 = ctypes.CDLL(name).mallinfo2 if name else None
    except (OSError, AttributeError):
        return None
    if mallinfo2 is None:
        return None
    mallinfo2.restype = _MallInfo2
    return int(mallinfo2().keepcost)


def pretouch_heap(total: int) -> int:
    """Fault in ``total`` bytes at the top of the heap (at most the trim threshold) and free
    them again, unless that much is free there already: with ``keep_freed_memory`` they stay
    mapped, so the first request as large as the largest body (its bytes and its decoded
    text: twice ``KENNING_MAX_REQUEST_BYTES``) finds its pages instead of faulting them in
    while holding the GIL. They are the server's resident pages from its start rather than
    after its first large request. Returns the bytes touched (0 when enough was free)."""
    wanted = min(total, _TRIM_THRESHOLD - _TOUCH_BLOCK)
    free = free_top()
    if free is None or free >= wanted:
        return 0
    # bytes repeated from one byte are written with memset: every page is touched (calloc
    # would hand back fresh zero pages untouched).
    blocks = [b"\x01" * _TOUCH_BLOCK for _ in range(math.ceil(wanted / _TOUCH_BLOCK))]
    touched = len(blocks) * _TOUCH_BLOCK
    del blocks
    return touched

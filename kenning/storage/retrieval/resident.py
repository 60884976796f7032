"""Resident vectors: a process's copy of large clients' ``chunk_vectors`` rows, compared in memory.

The exact scan (``exact_sql``) answers a query that resembles no chunk by comparing every
visible vector, and PostgreSQL does that at about 0.45 µs of CPU a row on one core: the
executor's work per row and a distance loop that waits on memory. At a million chunks the
reader's clients hold 118,000 rows, 55 ms a query, which two cores cannot pay for every name
query at the scale goal's throughput. The same comparison over rows laid out contiguously in
the process streams memory at its bandwidth, and with 8-bit codes ruling rows out first
(``resident_copy``) reads a quarter of the bytes: several times less CPU.

So a client whose rows are too many for the exact scan but fit ``max_rows`` is copied into the
process: its rows' keys, scope numbers and embeddings (as stored and as 8-bit codes), sorted
by scope number so a reader's visible scopes are contiguous blocks. A copy is taken in
one snapshot together with the client's write counter (``chunk_vector_versions``, migration
0022) and answers only in a snapshot that reads the same counter, where it is exactly what
``chunk_vectors`` holds for the client; otherwise the search does what it did without it and a
new copy is taken in the background, at most once every ``reload_after`` seconds per client.

A copy proposes candidates only: ``PgChunkIndex`` re-ranks them by the chunk's own vector in
the same snapshot, through the scope predicate and on ``chunks``, as the exact scan's second
step does.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Callable

import asyncpg
from threadpoolctl import threadpool_limits

from kenning.storage.retrieval.resident_copy import ClientCopy, decode

logger = logging.getLogger(__name__)

# One snapshot for the counter and the rows (the caller's repeatable-read transaction).
_VERSION = "SELECT coalesce(sum(version), 0) FROM chunk_vector_versions WHERE client_id = $1"
# halfvec's binary form: dimension and an unused int16, then each value as a big-endian half.
_ROWS = (
    "SELECT scope, id, halfvec_send(embedding) AS raw FROM chunk_vectors "
    "WHERE client_id = $1 ORDER BY scope"
)


async def read_copy(pool: asyncpg.Pool, client_id: str) -> ClientCopy:
    """A client's copy and write counter, read in one snapshot. The lock comes first (it
    takes no snapshot): a ``TRUNCATE``, which is not MVCC-safe, cannot empty the table
    between the counter's read and the rows'."""
    async with pool.acquire() as conn, conn.transaction(isolation="repeatable_read", readonly=True):
        await conn.execute("LOCK TABLE chunk_vectors IN ACCESS SHARE MODE")
        version = int(await conn.fetchval(_VERSION, client_id))
        records = await conn.fetch(_ROWS, client_id)
    return await asyncio.to_thread(decode, client_id, version, records)


_BLAS_LIMITED = False


def one_blas_thread() -> None:
    """Limit the process's BLAS to one thread, once: searches run in threads of their own, and
    OpenBLAS's threads spin between the second step's products (``resident_copy``): 15.3 ms
    of the process's CPU per search at a million chunks against 10.0 with one thread."""
    global _BLAS_LIMITED
    if not _BLAS_LIMITED:
        threadpool_limits(limits=1, user_api="blas")
        _BLAS_LIMITED = True


class ResidentVectors:
    """The copies one process holds, at most ``max_rows`` rows in all (least recently used
    copies make room), loaded in the background on demand; ``on_change`` hears the rows
    held after each change."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        max_rows: int,
        reload_after: float = 30.0,
        on_change: Callable[[int], None] | None = None,
    ) -> None:
        one_blas_thread()
        self._pool = pool
        self.max_rows = max_rows
        self.reload_after = reload_after
        self.on_change = on_change
        self._copies: OrderedDict[str, ClientCopy] = OrderedDict()
        self._loading: dict[str, asyncio.Task[ClientCopy | None]] = {}
        self._started: dict[str, float] = {}

    @property
    def rows(self) -> int:
        """Rows held now."""
        return sum(copy.rows for copy in self._copies.values())

    def current(self, client_id: str, version: int) -> ClientCopy | None:
        """The client's copy if it is as of ``version``."""
        copy = self._copies.get(client_id)
        if copy is None or copy.version != version:
            return None
        self._copies.move_to_end(client_id)
        return copy

    def want(self, client_id: str, version: int) -> None:
        """Start loading the client's copy, seen at ``version`` by a search, unless the copy
        held is as new (the search's snapshot was older), one is loading, or one was started
        less than ``reload_after`` seconds ago."""
        held = self._copies.get(client_id)
        started = self._started.get(client_id)
        if (
            (held is not None and held.version >= version)
            or client_id in self._loading
            or (started is not None and time.monotonic() - started < self.reload_after)
        ):
            return
        self._started[client_id] = time.monotonic()
        task = asyncio.create_task(self.load(client_id), name=f"resident vectors {client_id!r}")
        self._loading[client_id] = task
        task.add_done_callback(lambda _: self._loading.pop(client_id, None))

    async def settled(self) -> None:
        """Wait for the loads started in the background."""
        await asyncio.gather(*self._loading.values())

    async def aclose(self) -> None:
        """Stop the loads in flight (before the pool closes)."""
        for task in list(self._loading.values()):
            task.cancel()
        await asyncio.gather(*self._loading.values(), return_exceptions=True)

    async def load(self, client_id: str) -> ClientCopy | None:
        """Read the client's copy and keep it unless the one held is newer; ``None`` when it
        alone exceeds ``max_rows`` or the read failed, which is logged (a background task:
        nothing else would see the error, and searches take the walk meanwhile)."""
        try:
            copy = await read_copy(self._pool, client_id)
        except Exception as error:  # logged: the search path never waits on it
            logger.warning("resident vectors of %r not loaded: %r", client_id, error)
            return None
        held = self._copies.get(client_id)
        if held is not None and held.version > copy.version:
            return held
        if copy.rows > self.max_rows:
            logger.info(
                "resident vectors of %r: %d rows exceed %d", client_id, copy.rows, self.max_rows
            )
            self._copies.pop(client_id, None)
            self._changed()
            return None
        self._copies[client_id] = copy
        self._copies.move_to_end(client_id)
        while self.rows > self.max_rows:
            evicted, _ = self._copies.popitem(last=False)
            logger.info("resident vectors of %r evicted to make room", evicted)
        logger.info(
            "resident vectors of %r: %d rows as of version %d", client_id, copy.rows, copy.version
        )
        self._changed()
        return copy

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self.rows)

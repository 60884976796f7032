"""The file sweep: originals no job will index, and stored bytes no original points to.

An upload whose job was cancelled or failed keeps its original for ``orphaned_for``
(``KENNING_FILE_ORPHAN_HOURS``) so that the job can be retried; after that, and for an
original whose job was never queued (a process that died in between), the sweep deletes it.
A purge deletes a source's originals at once. Queue workers run the sweep every
``SWEEP_EVERY`` seconds (``Upkeep``).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Final

from kenning.domain.queue.tasks import Upkeep
from kenning.domain.sources.files.stored import FileStore, FileSweep

logger = logging.getLogger("kenning.sources.files")

SWEEP_EVERY: Final = 300.0


async def sweep_files(files: FileStore, orphaned_for: timedelta) -> FileSweep:
    """One sweep; what it deleted is logged."""
    swept = await files.sweep(orphaned_for)
    if swept.files or swept.objects:
        logger.info("files.swept", extra={"files": swept.files, "objects": swept.objects})
    return swept


def file_sweep(files: FileStore, orphan_hours: float, every: float = SWEEP_EVERY) -> Upkeep:
    """The sweep as a worker's upkeep."""
    orphaned_for = timedelta(hours=orphan_hours)

    async def run() -> FileSweep:
        return await sweep_files(files, orphaned_for)

    return Upkeep("file-sweep", every, run)

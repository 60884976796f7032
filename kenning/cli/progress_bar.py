"""`ProgressBar`: how far a followed job is (done of planned, refused, time so far), on stderr.

On a terminal it is one live bar redrawn in place, its clock ticking between updates; on a
pipe or a file it is one plain line each time the counts change, easy to log and grep:

    files 120/850 · refused 3 · 0:42

Example::

    with ProgressBar("files") as bar:
        bar.update(done=120, planned=850, refused=3)
"""

from __future__ import annotations

import time
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn


def progress_line(noun: str, done: int, planned: int, refused: int, seconds: float) -> str:
    """One plain line. Example: ``files 120/850 · refused 3 · 0:42``."""
    minutes, rest = divmod(int(seconds), 60)
    return f"{noun} {done}/{planned} · refused {refused} · {minutes}:{rest:02d}"


class ProgressBar:
    """A job's counts on ``console`` (stderr by default): a live bar on a terminal, else a
    plain line per change. Use it as a context manager; `update` with each new count."""

    def __init__(self, noun: str, console: Console | None = None) -> None:
        self._noun = noun
        self._console = console or Console(stderr=True, highlight=False)
        self._started = time.monotonic()
        self._live: Progress | None = None
        self._task: TaskID | None = None
        self._shown: tuple[int, int, int] | None = None

    @property
    def live(self) -> bool:
        """Whether the bar redraws in place (its console is a terminal)."""
        return self._console.is_terminal

    def __enter__(self) -> ProgressBar:
        self._started = time.monotonic()
        if self.live:
            self._live = Progress(
                TextColumn(self._noun),
                BarColumn(),
                TextColumn("{task.completed}/{task.fields[planned]}"),
                TextColumn("· refused {task.fields[refused]} ·"),
                TimeElapsedColumn(),
                console=self._console,
            )
            self._task = self._live.add_task(self._noun, total=None, planned="?", refused=0)
            self._live.start()
        return self

    def update(self, done: int, planned: int, refused: int) -> None:
        """Show the new counts (a plain line only when they changed)."""
        if self._live is not None and self._task is not None:
            self._live.update(
                self._task, completed=done, total=planned, planned=planned, refused=refused
            )
            return
        if self._shown == (done, planned, refused):
            return
        self._shown = (done, planned, refused)
        seconds = time.monotonic() - self._started
        self._console.print(
            progress_line(self._noun, done, planned, refused, seconds), markup=False
        )

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._live is not None:
            self._live.stop()  # the last state stays on screen, above what follows
            self._live = None

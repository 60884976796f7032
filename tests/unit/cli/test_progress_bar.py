"""A followed job's progress: redrawn in place on a terminal, plain lines (one per change)
anywhere else, with done of planned, refused and the time so far."""

from __future__ import annotations

import io

from rich.console import Console

from kenning.cli.crawl import pages
from kenning.cli.progress_bar import ProgressBar, progress_line


def console(*, terminal: bool) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=terminal, width=100, color_system=None), out


def test_off_a_terminal_each_change_is_one_plain_line() -> None:
    plain, out = console(terminal=False)
    with ProgressBar("files", plain) as bar:
        assert not bar.live
        bar.update(0, 850, 0)
        bar.update(120, 850, 3)
        bar.update(120, 850, 3)  # unchanged: no second line
        bar.update(850, 850, 4)
    assert out.getvalue().splitlines() == [
        "files 0/850 · refused 0 · 0:00",
        "files 120/850 · refused 3 · 0:00",
        "files 850/850 · refused 4 · 0:00",
    ]


def test_on_a_terminal_the_bar_redraws_in_place_and_stays_at_its_end() -> None:
    terminal, out = console(terminal=True)
    with ProgressBar("pages", terminal) as bar:
        assert bar.live
        bar.update(1, 20, 0)
        bar.update(7, 20, 1)
    text = out.getvalue()
    assert "\x1b[2K" in text  # the line is erased and drawn again, not appended
    last = text.rsplit("\r", 1)[-1]
    assert "pages" in last and "7/20 · refused 1 ·" in last and "0:00:0" in last
    assert "━" in last  # a bar, not just counts
    assert text.count("\n") <= 1  # one line on screen, however many updates


def test_a_line_shows_minutes_and_seconds() -> None:
    assert progress_line("files", 120, 850, 3, 62.4) == "files 120/850 · refused 3 · 1:02"


def test_a_crawl_plans_the_pages_it_may_still_visit_and_refuses_the_failed() -> None:
    counts = {"fetched": 3, "unchanged": 1, "skipped": 1, "failed": 2, "queued": 40, "stored": 3}
    assert pages(counts, 100) == (7, 47, 2)
    assert pages(counts, 20) == (7, 20, 2)  # never more than --max-pages
    assert pages({"fetched": 5, "queued": 0}, 3) == (5, 5, 0)

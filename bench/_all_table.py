"""The one table of ``make bench``: figures, their baselines, ratios and goals.

Pure: a benchmark's results JSON goes in (``rows``), rows come out, ``render`` makes them
text. A ratio is always Kenning's figure over the baseline's; a goal bounds either that ratio
or Kenning's figure itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

#: Issue 15's goals, by number: the table says which of them no row measured.
ISSUE_GOALS = {
    1: "interactive before bulk: search p95 during bulk embedding <= 3x idle",
    2: "embedder throughput: ingest and queue >= 80% of a plain script",
    3: "keyword search as BM25: SciFact KEYWORD >= 0.66, HYBRID >= 0.72, p50 <= 15 ms",
    4: "fan-out by cohort: 2,000 subscribers p95 <= 250 ms, every delivery",
    5: "graph reads: 2-hop neighbors p50 <= 1.3x SQL",
    6: "write path: re-ingest <= 5 ms/doc, ingest >= 0.5x raw, lanes <= 1.5x, snapshot <= 20 ms",
}


@dataclass(frozen=True, slots=True)
class Goal:
    """A bound on the ratio or on Kenning's figure; ``issue`` is its number in issue 15."""

    on: Literal["ratio", "figure"]
    most: float | None = None
    least: float | None = None
    issue: int | None = None

    def met(self, figure: float, ratio: float | None) -> bool | None:
        """True/False, or None when the goal is on a ratio this row has not got."""
        value = ratio if self.on == "ratio" else figure
        if value is None:
            return None
        return (self.most is None or value <= self.most) and (
            self.least is None or value >= self.least
        )

    def text(self) -> str:
        """``<= 1.3x`` or ``>= 0.66``, with ``(#5)`` for an issue-15 goal."""
        mark = "x" if self.on == "ratio" else ""
        bound = f"<= {self.most:g}{mark}" if self.most is not None else f">= {self.least:g}{mark}"
        return f"{bound} (#{self.issue})" if self.issue else bound


@dataclass(frozen=True, slots=True)
class Figure:
    """One measured figure of a benchmark, with its baseline when it has one."""

    label: str
    unit: str
    kenning: float
    baseline: float | None = None
    baseline_label: str = ""
    goal: Goal | None = None


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the table; ``verdict`` is met, missed, -, FAILED (exit n) or no results."""

    benchmark: str
    figure: str
    goal: str
    kenning: str
    baseline: str
    ratio: float | None
    verdict: str
    issue_goal: int | None = None


Extract = Callable[[dict[str, Any]], list[Figure]]


def _number(value: float, unit: str) -> str:
    if isinstance(value, int):
        text = f"{value:,}"
    else:
        text = f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    return f"{text} {unit}".strip()


def row_of(benchmark: str, figure: Figure) -> Row:
    """Judge one figure: its ratio to the baseline and whether it meets its goal."""
    ratio = None
    if figure.baseline is not None and figure.baseline != 0:
        ratio = figure.kenning / figure.baseline
    met = figure.goal.met(figure.kenning, ratio) if figure.goal else None
    baseline = ""
    if figure.baseline is not None:
        baseline = f"{_number(figure.baseline, figure.unit)} {figure.baseline_label}".strip()
    return Row(
        benchmark=benchmark,
        figure=figure.label,
        goal=figure.goal.text() if figure.goal else "",
        kenning=_number(figure.kenning, figure.unit),
        baseline=baseline,
        ratio=ratio,
        verdict="-" if met is None else ("met" if met else "missed"),
        issue_goal=figure.goal.issue if figure.goal else None,
    )


def rows(
    benchmark: str, failure: str | None, results: dict[str, Any] | None, extract: Extract
) -> list[Row]:
    """The rows of one run: its figures, or one row saying why there are none.

    ``failure`` is why the run failed (``"exit 2"``, ``"timeout after 3600 s"``) or None.
    """
    if failure is not None:
        return [Row(benchmark, "", "", "", "", None, f"FAILED ({failure})")]
    if results is None:
        return [Row(benchmark, "", "", "", "", None, "no results")]
    try:
        figures = extract(results)
    except (KeyError, IndexError, StopIteration, TypeError, ValueError) as error:
        return [Row(benchmark, f"results unreadable: {error!r}", "", "", "", None, "no results")]
    return [row_of(benchmark, f) for f in figures]


def unmeasured(table: Sequence[Row]) -> list[str]:
    """Issue 15's goals that no row of this run measured."""
    seen = {r.issue_goal for r in table}
    return [f"#{n} {text}" for n, text in ISSUE_GOALS.items() if n not in seen]


_HEAD = ("benchmark", "figure", "goal", "kenning", "baseline", "ratio", "verdict")


def render(table: Sequence[Row]) -> str:
    """The rows as one aligned text table, then the issue-15 goals no row measured."""
    cells = [_HEAD] + [
        (r.benchmark, r.figure, r.goal, r.kenning, r.baseline,
         "" if r.ratio is None else f"{r.ratio:.2f}x", r.verdict)
        for r in table
    ]  # fmt: skip
    widths = [max(len(row[i]) for row in cells) for i in range(len(_HEAD))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
             for row in cells]  # fmt: skip
    lines.insert(1, "  ".join("-" * w for w in widths))
    missing = unmeasured(table)
    if missing:
        lines += ["", "issue 15 goals no benchmark of this run measured:", *missing]
    return "\n".join(lines)
